#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that appears whole or not at all: bytes go to a hidden temporary file beside the
/// target (mode 0600 by default: rosters hold personal data), which `commit()` fsyncs and renames.
/// Dropping it uncommitted removes the temporary file. Counts bytes and hashes them as it goes.
/// The rename replaces whatever has the name, a symbolic link included: callers that mean the file a
/// link points to resolve it first (`OutputTarget`).
public final class AtomicFile {
    public let path: String
    private let temporaryPath: String
    private let writer: DescriptorWriter
    public var byteCount: Int { writer.byteCount }
    private var done = false

    public init(path: String, mode: mode_t = 0o600) throws(OutputError) {
        self.path = path
        let (directory, name) = splitPath(path)
        // A fresh name, created exclusively: two outputs to the same path never share (and truncate)
        // one temporary file, and a planted symlink is never followed.
        var candidate = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            candidate = "\(directory)/.\(name).\(getpid()).\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
            fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .fromErrno(path) }
        temporaryPath = candidate
        writer = DescriptorWriter(descriptor: fd, path: path)
        fchmod(fd, mode)
    }

    deinit {
        if !done {
            close(writer.descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends bytes, flushing to disk in 64 KiB blocks.
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        try writer.write(bytes)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        try writer.write(bytes)
    }

    public func write(_ text: String) throws(OutputError) {
        try write(Array(text.utf8))
    }

    /// Makes the file appear under its name; returns its size and SHA-256.
    @discardableResult
    public func commit() throws(OutputError) -> (bytes: Int, sha256: String) {
        try writer.flush()
        guard fsync(writer.descriptor) == 0 else { throw .fromErrno(path) }
        close(writer.descriptor)
        done = true
        guard rename(temporaryPath, path) == 0 else {
            let error = OutputError.fromErrno(path)
            unlink(temporaryPath)
            throw error
        }
        return (writer.byteCount, writer.finalizeHex())
    }
}
