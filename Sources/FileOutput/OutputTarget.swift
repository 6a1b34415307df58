#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an output name on the command line stands for, and so how it is written. `-` is standard
/// output, and so is any other name of what standard output is (`/dev/stdout`). A regular file, or a name not taken yet, is replaced atomically: the symbolic links on
/// the way are resolved first, so the temporary file is made beside the real file and renamed over
/// it, and the links stay. A character device, a pipe or a socket is written through, as `tee`
/// does, and never replaced. Anything else (a folder, a block device) is refused.
public enum OutputTarget: Sendable, Equatable {
    case standardOutput
    /// A regular file or a free name, links resolved: written beside it and renamed over it.
    case regularFile(String)
    /// A character device or a named pipe: opened and written in place.
    case device(String)
    /// A Unix-domain stream socket: connected to and written in place.
    case socket(String)

    /// Decides from what `name` is now; `-` is standard output.
    public init(_ name: String) throws(OutputError) {
        if name == "-" {
            self = .standardOutput
            return
        }
        var info = stat()
        guard stat(name, &info) == 0 else {
            // Nothing there yet, or a link to nothing: the file the chain of links ends at is created.
            guard errno == ENOENT else { throw .fromErrno(name) }
            self = .regularFile(try Self.endOfLinks(name))
            return
        }
        var standardOutput = stat()
        if fstat(STDOUT_FILENO, &standardOutput) == 0, standardOutput.st_dev == info.st_dev, standardOutput.st_ino == info.st_ino {
            self = .standardOutput
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regularFile(try Self.endOfLinks(name))
        case S_IFCHR, S_IFIFO: self = .device(name)
        case S_IFSOCK: self = .socket(name)
        case S_IFDIR: throw OutputError(path: name, reason: "is a folder, not a file")
        default: throw OutputError(path: name, reason: "is not a regular file, a character device, a pipe or a socket")
        }
    }

    /// The name to report: the path written, or `-` for standard output.
    public var path: String {
        switch self {
        case .standardOutput: "-"
        case .regularFile(let path), .device(let path), .socket(let path): path
        }
    }

    private static let maximumLinkHops = 40

    /// The name a chain of symbolic links ends at (`name` itself when it is not a link); relative
    /// link targets count from the link's folder.
    private static func endOfLinks(_ name: String) throws(OutputError) -> String {
        var current = name
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for _ in 0..<maximumLinkHops {
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else {
                // EINVAL: not a link; ENOENT: nothing there, so this is the name to create.
                if errno == EINVAL || errno == ENOENT { return current }
                throw .fromErrno(name)
            }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : splitPath(current).directory + "/" + target
        }
        throw OutputError(path: name, reason: String(cString: strerror(ELOOP)))
    }
}
