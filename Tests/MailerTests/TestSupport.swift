// The shared test helpers (CruBatchTestSupport) are visible to every file of this target, as if
// declared here: its files need no import of their own.
import CruBatchTestSupport
import Foundation

/// The lines of `bytes`, split at CRLF; nil if any CR or LF appears outside a CRLF pair.
func crlfLines(_ bytes: [UInt8]) -> [[UInt8]]? {
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == 13 {
            guard index + 1 < bytes.count, bytes[index + 1] == 10 else { return nil }
            lines.append(current)
            current = []
            index += 2
            continue
        }
        if byte == 10 { return nil }
        current.append(byte)
        index += 1
    }
    if !current.isEmpty { lines.append(current) }
    return lines
}

/// Collects bytes written from any thread.
final class ByteSink: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [UInt8] = []

    func append(_ bytes: [UInt8]) {
        lock.withLock { storage += bytes }
    }

    var bytes: [UInt8] {
        lock.withLock { storage }
    }
}
