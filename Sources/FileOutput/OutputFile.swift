#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output on its way to an `OutputTarget`, counted and hashed as it goes. A regular file appears
/// whole on `commit()` (an `AtomicFile`); standard output, a device, a pipe or a socket receives the
/// bytes as they are flushed, and `commit()` writes the rest.
public final class OutputFile {
    public let target: OutputTarget
    private let sink: Sink
    /// Whether a descriptor this object opened is still open.
    private var ownsOpenDescriptor: Bool

    private enum Sink {
        case replacing(AtomicFile)
        case writingThrough(DescriptorWriter)
    }

    /// Opens the target; a new or replaced regular file gets `mode`.
    public init(_ target: OutputTarget, mode: mode_t = 0o600) throws(OutputError) {
        self.target = target
        switch target {
        case .standardOutput:
            sink = .writingThrough(DescriptorWriter(descriptor: STDOUT_FILENO, path: target.path))
            ownsOpenDescriptor = false
        case .regularFile(let path):
            sink = .replacing(try AtomicFile(path: path, mode: mode))
            ownsOpenDescriptor = false
        case .device(let path):
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .fromErrno(path) }
            sink = .writingThrough(DescriptorWriter(descriptor: descriptor, path: path))
            ownsOpenDescriptor = true
        case .socket(let path):
            sink = .writingThrough(DescriptorWriter(descriptor: try Self.connect(path), path: path))
            ownsOpenDescriptor = true
        }
    }

    deinit { closeOwnDescriptor() }

    public func write(_ bytes: [UInt8]) throws(OutputError) {
        switch sink {
        case .replacing(let file): try file.write(bytes)
        case .writingThrough(let writer): try writer.write(bytes)
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        switch sink {
        case .replacing(let file): try file.write(bytes)
        case .writingThrough(let writer): try writer.write(bytes)
        }
    }

    /// Finishes the output; returns its size and SHA-256.
    @discardableResult
    public func commit() throws(OutputError) -> (bytes: Int, sha256: String) {
        switch sink {
        case .replacing(let file):
            return try file.commit()
        case .writingThrough(let writer):
            try writer.flush()
            closeOwnDescriptor()
            return (writer.byteCount, writer.finalizeHex())
        }
    }

    /// Finishes an output that a writer taking only a path (a C library) produces: a regular file
    /// is filled at its hidden temporary path (mode 0600 from the start) and renamed; standard
    /// output, a device, a pipe or a socket gets the bytes of a file filled in a private temporary
    /// folder, which is removed. Returns the output's size and SHA-256.
    @discardableResult
    public func commit(filledBy fill: (String) throws -> Void) throws -> (bytes: Int, sha256: String) {
        if case .replacing(let file) = sink { return try file.commit(filledBy: fill) }
        let environment = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        var template = Array(((environment.isEmpty ? "/tmp" : environment) + "/crubatch.XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw OutputError.fromErrno(target.path) }
        let folder = String(cString: created)
        let staged = folder + "/output"
        defer {
            unlink(staged)
            rmdir(folder)
        }
        try AtomicFile(path: staged).commit(filledBy: fill)
        try readChunks(of: staged, reportingAs: target.path) { try write($0) }
        return try commit()
    }

    /// Closes a device or socket this object opened (the reader of a pipe then sees its end).
    private func closeOwnDescriptor() {
        guard ownsOpenDescriptor, case .writingThrough(let writer) = sink else { return }
        close(writer.descriptor)
        ownsOpenDescriptor = false
    }

    /// A stream socket connected to the Unix-domain socket at `path`.
    private static func connect(_ path: String) throws(OutputError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw OutputError(path: path, reason: "the socket's path is too long to connect to")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .fromErrno(path) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = OutputError.fromErrno(path)
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
