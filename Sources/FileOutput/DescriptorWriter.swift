#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writes to an open descriptor, counted and hashed as they go; shared by every kind of
/// output. It neither opens nor closes the descriptor.
final class DescriptorWriter {
    let descriptor: Int32
    /// The name errors are reported under.
    let path: String
    private var buffer: [UInt8] = []
    private let hasher = SHA256Hasher()
    private(set) var byteCount = 0

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends bytes, writing them out in 64 KiB blocks.
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func write(_ bytes: [UInt8]) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes out what is buffered, retrying short writes and interruptions.
    func flush() throws(OutputError) {
        var offset = 0
        let failed: Bool = buffer.withUnsafeBytes { bytes in
            hasher.update(bytes)
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        if failed { throw .fromErrno(path) }
        byteCount += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// The SHA-256 of everything written; call once, after the last flush.
    func finalizeHex() -> String { hasher.finalizeHex() }
}

/// The folder part and the last component of a path (`.` when there is no slash).
func splitPath(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = slash == path.startIndex ? "/" : String(path[..<slash])
    return (directory, String(path[path.index(after: slash)...]))
}
