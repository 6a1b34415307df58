import Foundation
import Mailer
import PostgresClient

/// `notify --requeue`: failed or dead notifications put back to pending, attempts reset.
public struct RequeueReport: Sendable, CommandReport {
    /// Which notifications `--requeue` takes back.
    public enum Status: String, Sendable, CaseIterable, Encodable {
        case failed, dead
    }

    public let status: Status
    public let requeued: Int

    /// Puts the notifications in `status` (those that reached it since `since`, when given) back
    /// to pending, due now, with no attempt counted.
    public static func requeue(_ status: Status, since: Date?, connection: PostgresConnection) throws -> RequeueReport {
        try Migrator(connection: connection).requireCurrent()
        let after: PostgresQuery = since.map { "and updated_at >= to_timestamp(\($0.timeIntervalSince1970)::double precision)" } ?? ""
        let count = try connection.query("""
            update notifications set status = \(unescaped: NotificationStatus.pending.sql), attempts = 0, next_attempt_at = now()
            where status = \(status.rawValue) \(after)
            """).affectedRows
        return RequeueReport(status: status, requeued: count)
    }

    public var text: String {
        "requeued \(requeued) \(status.rawValue) notification\(requeued == 1 ? "" : "s")"
            + (requeued > 0 ? "; `crubatch notify` sends them" : "")
    }
}

/// `notify --preview KIND`: one message as it would be sent, decoded.
public struct MessagePreview: CommandReport {
    public let from: String
    public let to: [String]
    public let replyTo: [String]
    public let subject: String
    public let body: String
    private let readable: String

    private enum CodingKeys: String, CodingKey {
        case from, to, replyTo, subject, body
    }

    public init(_ message: EmailMessage) {
        from = message.from.description
        to = message.to.map(\.description)
        replyTo = message.replyTo.map(\.description)
        subject = message.subject
        body = message.body
        readable = message.readable
    }

    public var text: String { readable.hasSuffix("\n") ? String(readable.dropLast()) : readable }
}
