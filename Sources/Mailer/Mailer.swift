import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Something that delivers email: SMTP (`SMTPTransport`), a preview (`StdoutTransport`), or a fake
/// in tests.
public protocol MailTransport {
    /// Delivers one message to all of its recipients, or throws why not.
    func send(_ message: EmailMessage) throws(MailError)
}

/// A transport that does not send anything: it writes each message as people read it
/// (`EmailMessage.readable`: headers and body decoded) to a file descriptor or a closure, messages
/// separated by a line of dashes. For `--transport stdout` previews. A write that fails (a full
/// disk, a closed descriptor) is a failed send, so the message is not counted as delivered. Safe to
/// share between threads.
public final class StdoutTransport: MailTransport, @unchecked Sendable {
    /// The line written between two messages (without its line end).
    public static let separator = String(repeating: "-", count: 76)

    private let write: @Sendable ([UInt8]) throws(MailError) -> Void
    private let lock = NSLock()
    private var count = 0

    /// A transport writing to `fileHandle` (standard output by default).
    public convenience init(fileHandle: FileHandle = .standardOutput) {
        let descriptor = fileHandle.fileDescriptor
        let name = fileHandle == .standardOutput ? "standard output" : "descriptor \(descriptor)"
        self.init { bytes throws(MailError) in try Self.write(bytes, to: descriptor, name: name) }
    }

    /// A transport handing each message's readable text as UTF-8 (with the separator line before
    /// every message but the first) to `write`, which throws when the text could not be written.
    public init(write: @escaping @Sendable ([UInt8]) throws(MailError) -> Void) {
        self.write = write
    }

    /// How many messages have been written.
    public var sentCount: Int {
        lock.withLock { count }
    }

    /// Writes the readable message.
    public func send(_ message: EmailMessage) throws(MailError) {
        let text = message.readable
        lock.lock()
        defer { lock.unlock() }
        try write(Array(((count > 0 ? Self.separator + "\n" : "") + text).utf8))
        count += 1
    }

    /// Writes all of `bytes` to `descriptor`, retrying short writes and interruptions; a refusal
    /// stops the session (nothing more can be written there).
    private static func write(_ bytes: [UInt8], to descriptor: Int32, name: String) throws(MailError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw MailError(scope: .session, message: "\(name): cannot write: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// A transport that keeps every message it is given, in order, instead of sending it: a preview
/// whose messages are printed together afterwards (one JSON document). Safe to share between threads.
public final class CollectingTransport: MailTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [EmailMessage] = []

    public init() {}

    /// The messages given so far.
    public var messages: [EmailMessage] { lock.withLock { kept } }

    /// Keeps the message.
    public func send(_ message: EmailMessage) throws(MailError) {
        lock.withLock { kept.append(message) }
    }
}
