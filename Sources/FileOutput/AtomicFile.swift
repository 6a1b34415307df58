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

    /// Commits a file filled by a writer that only takes a path (a C library): `fill` gets the
    /// hidden temporary path, which exists already with the file's mode, and writes the whole file
    /// there. Then the file is hashed, fsynced and renamed like any other.
    @discardableResult
    public func commit(filledBy fill: (String) throws -> Void) throws -> (bytes: Int, sha256: String) {
        try fill(temporaryPath)
        let hasher = SHA256Hasher()
        var count = 0
        try readChunks(of: temporaryPath, reportingAs: path) { chunk in
            hasher.update(chunk)
            count += chunk.count
        }
        try commit()
        return (count, hasher.finalizeHex())
    }
}

/// Reads a file in 64 KiB chunks (after an fsync, so a file another writer just filled is on disk);
/// errors name `name`.
func readChunks(of path: String, reportingAs name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { throw OutputError.fromErrno(name) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw OutputError.fromErrno(name) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw OutputError.fromErrno(name) }
        if count == 0 { return }
        try chunk.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
