import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and standard error, written straight through write(2). A stream that cannot be
/// written (a full disk, a closed descriptor, a reader gone) is an error to report, never a trap:
/// the first failure of each stream is kept, later writes to it are dropped, and the command asks
/// `failure` at its end to turn standard output's into exit 73.
public enum StandardStream: Sendable {
    case output
    case error

    /// Writes all of `text` as UTF-8; false when the stream refused it (now or before).
    @discardableResult
    public func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `bytes`; false when the stream refused them (now or before).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes all of `bytes`, retrying short writes and interruptions; false when the stream
    /// refused them (now or before).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        if let closedError = Self.closed.withLock({ $0[self] }) {
            Self.failures.withLock { $0[self] = $0[self] ?? closedError }
            return false
        }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let error = OutputError.fromErrno(name)
                Self.failures.withLock { $0[self] = $0[self] ?? error }
                return false
            }
            offset += written
        }
        return true
    }

    /// Holds descriptors 0, 1 and 2 open, on /dev/null where the process was started with one of
    /// them closed (`crubatch status >&-`): otherwise the next file or socket opened would take
    /// that number, and a report meant for standard output would be written into it (a database
    /// connection, an export). A closed standard output or error counts as failed from the start.
    /// Call it first, before anything opens a descriptor.
    public static func holdClosedDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open() takes the lowest free number, which is this one: the lower ones are open by now.
            _ = open("/dev/null", O_RDWR)
            let stream: StandardStream? = descriptor == STDOUT_FILENO ? .output : descriptor == STDERR_FILENO ? .error : nil
            if let stream { closed.withLock { $0[stream] = OutputError(path: stream.name, reason: String(cString: strerror(EBADF))) } }
        }
    }

    /// Why this stream could not be written, if a write to it failed.
    public var failure: OutputError? {
        Self.failures.withLock { $0[self] }
    }

    private var descriptor: Int32 {
        switch self {
        case .output: STDOUT_FILENO
        case .error: STDERR_FILENO
        }
    }

    private var name: String {
        switch self {
        case .output: "standard output"
        case .error: "standard error"
        }
    }

    private static let failures = LockedFailures()
    /// The streams the process was started without, held on /dev/null: writing to one fails.
    private static let closed = LockedFailures()
}

/// A failure for each standard stream, shared by every thread that writes to them.
private final class LockedFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [StandardStream: OutputError] = [:]

    func withLock<T>(_ body: (inout [StandardStream: OutputError]) -> T) -> T {
        lock.withLock { body(&failures) }
    }
}
