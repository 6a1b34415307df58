import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file that has no name in any folder, so it cannot outlive the process however the
/// process ends (SIGINT, SIGTERM, SIGKILL, a crash): the kernel frees it with the last descriptor.
/// For what crubatch keeps only while it works and what holds personal data (a download, the
/// staged rows of a migration). While it is open, `path` (`/proc/self/fd/N`) opens it again, for
/// readers that take a path. Where the system has no unnamed files, it is a named 0600 file
/// removed on `close()`.
public final class UnnamedFile: @unchecked Sendable {
    /// A path that opens the file while it is open.
    public let path: String
    /// Open for reading and writing.
    public let descriptor: Int32
    /// The file's name, where it has one.
    private let name: String?
    private let lock = NSLock()
    private var isOpen = true

    /// Creates an empty file (mode 0600) on the file system of `directory`.
    public init(in directory: String) throws(OutputError) {
        let folder = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        // O_TMPFILE: a file in the folder's file system that no folder lists.
        let unnamed = open(folder, __O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600)
        if unnamed >= 0 {
            descriptor = unnamed
            path = "/proc/self/fd/\(unnamed)"
            name = nil
            return
        }
        var template = Array((folder + "/crubatch-XXXXXX").utf8CString)
        let named = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard named >= 0 else {
            throw OutputError(path: folder, reason: "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        fchmod(named, 0o600)
        let created = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = named
        // Without a name the file is gone as soon as the process is; /proc reopens it meanwhile.
        if FileManager.default.fileExists(atPath: "/proc/self/fd/\(named)"), unlink(created) == 0 {
            path = "/proc/self/fd/\(named)"
            name = nil
        } else {
            path = created
            name = created
        }
    }

    deinit { close() }

    /// Appends all of `bytes`, retrying short writes and interruptions.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .fromErrno(path)
            }
            offset += written
        }
    }

    /// Frees the file; `path` opens nothing after this.
    public func close() {
        lock.withLock {
            guard isOpen else { return }
            isOpen = false
            Glibc.close(descriptor)
            if let name { unlink(name) }
        }
    }
}
