#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that appears whole or not at all: bytes go to a hidden temporary file beside the
/// target (mode 0600 by default: rosters hold personal data), which `commit()` fsyncs and renames.
/// Dropping it uncommitted removes the temporary file. Counts bytes and hashes them as it goes.
public final class AtomicFile {
    public let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private let hasher = SHA256Hasher()
    public private(set) var byteCount = 0
    private var done = false

    public init(path: String, mode: mode_t = 0o600) throws(OutputError) {
        self.path = path
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
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
        descriptor = fd
        fchmod(descriptor, mode)
        buffer.reserveCapacity(1 << 16)
    }

    deinit {
        if !done {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends bytes, flushing to disk in 64 KiB blocks.
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ text: String) throws(OutputError) {
        try write(Array(text.utf8))
    }

    private func flush() throws(OutputError) {
        var offset = 0
        let failed: Bool = buffer.withUnsafeBytes { bytes in
            hasher.update(bytes)
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += n
            }
            return false
        }
        if failed { throw .fromErrno(path) }
        byteCount += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Makes the file appear under its name; returns its size and SHA-256.
    @discardableResult
    public func commit() throws(OutputError) -> (bytes: Int, sha256: String) {
        try flush()
        guard fsync(descriptor) == 0 else { throw .fromErrno(path) }
        close(descriptor)
        done = true
        guard rename(temporaryPath, path) == 0 else {
            let error = OutputError.fromErrno(path)
            unlink(temporaryPath)
            throw error
        }
        return (byteCount, hasher.finalizeHex())
    }
}
