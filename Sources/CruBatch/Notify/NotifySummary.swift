import Mailer

/// What one `notify` pass did.
public struct NotifySummary: Sendable, Equatable, CommandReport {
    /// Whether this run only previewed (`--transport stdout`): nothing sent, nothing marked.
    public var preview = false
    /// Notifications sent; a digest carries several in one email.
    public var sent = 0
    /// Emails the mail server accepted.
    public var emails = 0
    /// Written to standard output by a preview instead of sent.
    public var previewed = 0
    /// Refused for good by the mail server (a 5xx for this message's recipient or content); not retried.
    public var failed = 0
    /// Tried and failed for now: retried later (attempts + 1, next attempt after the backoff).
    public var retrying = 0
    public var dead = 0
    public var skipped = 0
    /// Due but left for a later run because this one stopped: next attempt after the backoff,
    /// attempts unchanged (the server never judged them).
    public var postponed = 0
    /// Why the run stopped before it tried every due notification, if it did.
    public var stop: NotifyStop?
    /// Pending notifications left waiting for their backoff after the run.
    public var waiting = 0
    /// When the first of them falls due (UTC, ISO 8601), and in how many seconds.
    public var nextRetryAt: String?
    public var nextRetryInSeconds: Int?
    /// Times the database connection was lost (a failover) and made again during the run.
    public var reconnections = 0

    /// Adds another sender's counts of the same run; its stop counts when this one has none, or when
    /// it is a refused login (the exit status then asks for the settings to be fixed). What is left
    /// waiting is not added: it is the database's, read once every sender has finished.
    mutating func add(_ other: NotifySummary) {
        sent += other.sent
        emails += other.emails
        previewed += other.previewed
        failed += other.failed
        retrying += other.retrying
        dead += other.dead
        skipped += other.skipped
        postponed += other.postponed
        reconnections += other.reconnections
        if stop == nil || other.stop?.reason == .mailSettings { stop = other.stop ?? stop }
    }

    /// Whether the run handled any notification or stopped.
    var didAnything: Bool { sent + previewed + failed + retrying + dead + skipped > 0 || stop != nil }

    public var text: String {
        let handled = preview ? "previewed \(previewed) (nothing sent or marked)"
            : "sent \(sent)" + (emails < sent ? " in \(emails) email\(emails == 1 ? "" : "s")" : "")
        return "\(handled), failed \(failed), retrying \(retrying), dead \(dead), skipped \(skipped)"
            + (stop.map { "; stopped, \(postponed) postponed: \($0.message)" } ?? "")
            + (reconnections > 0 ? "; reconnected to the database \(reconnections) time\(reconnections == 1 ? "" : "s")" : "")
            + (nextRetryAt.map { at in
                "; \(waiting) waiting, next retry at \(at.replacingOccurrences(of: "T", with: " ").dropLast()) UTC"
                    + " (in \(nextRetryInSeconds ?? 0) s; notify --now tries them now)"
            } ?? "")
    }

    /// 0 all delivered; 1 some refused for good or dead; 69 the mail server unavailable or failing
    /// message after message; 78 the mail settings refused.
    public var exitStatus: ExitStatus {
        switch stop?.reason {
        case .mailSettings: .configuration
        case .serverUnavailable, .consecutiveFailures: .unavailable
        case nil: failed + dead > 0 ? .rejected : .ok
        }
    }
}

/// Why a `notify` run stopped before it tried every due notification.
public struct NotifyStop: Sendable, Equatable, Encodable {
    /// What stopped the run.
    public enum Reason: String, Sendable, Encodable {
        /// The mail server cannot be used now: unreachable, timing out, closing the session,
        /// refusing the sender, full or over its sending limit.
        case serverUnavailable = "server-unavailable"
        /// The mail server refused the login (or demands one that was not given), or a mail setting
        /// cannot be used: nothing will go until the settings change.
        case mailSettings = "mail-settings"
        /// `Notifier.consecutiveFailureLimit` messages in a row failed.
        case consecutiveFailures = "consecutive-failures"
    }

    public var reason: Reason
    /// What went wrong, in the mail server's words.
    public var message: String

    /// The stop a failed send calls for: none for a failure of that message alone.
    init?(_ error: MailError) {
        switch error.scope {
        case .message: return nil
        case .session: reason = .serverUnavailable
        case .credentials, .configuration: reason = .mailSettings
        }
        message = error.message
    }

    /// The stop after `count` failed messages in a row, the last with `error`: none below the limit.
    init?(failuresInARow count: Int, last error: MailError) {
        guard count >= Notifier.consecutiveFailureLimit else { return nil }
        reason = .consecutiveFailures
        message = "\(count) messages in a row failed, the last: \(error.message)"
    }
}

/// `notify --transport stdout --format json`: the run's summary and every previewed message, as one
/// document (`{"previewed": 2, ..., "messages": [{"from": ..., "to": [...], "subject": ...}]}`).
public struct NotifyPreviewReport: CommandReport {
    public let summary: NotifySummary
    public let messages: [MessagePreview]

    public init(summary: NotifySummary, messages: [MessagePreview]) {
        self.summary = summary
        self.messages = messages
    }

    private enum CodingKeys: String, CodingKey { case messages }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(messages, forKey: .messages)
    }

    public var text: String { summary.text }
}
