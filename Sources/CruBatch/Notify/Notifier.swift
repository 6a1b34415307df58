import Foundation
import Mailer
import PostgresClient

/// How `notify` delivers.
public struct NotifyOptions: Sendable {
    /// One message per leader listing all their pending joins.
    public var digest = false
    /// After this many failed attempts a notification is `dead`.
    public var maxAttempts = 8
    /// The first retry waits this long; each further one twice as long (with ±50% jitter), at most 6 hours.
    public var retryBase: Double = 60
    public var from = EmailAddress("crubatch@localhost", name: "Cru community groups")
    /// Preview: render and hand to the transport, but change nothing in the database.
    public var preview = false

    public init() {}
}

/// What one `notify` pass did.
public struct NotifySummary: Sendable, Equatable, CommandReport {
    public var sent = 0
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

    public var text: String {
        "sent \(sent), failed \(failed), retrying \(retrying), dead \(dead), skipped \(skipped)"
            + (stop.map { "; stopped, \(postponed) postponed: \($0.message)" } ?? "")
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

/// Delivers the notifications outbox: claims due rows with `FOR UPDATE SKIP LOCKED` (so several
/// `notify` processes never send the same row), sends, and marks each row in the same short
/// transaction, so a crash re-sends at most the message in flight (with the same Message-ID).
public final class Notifier {
    public static let channel = "crubatch_notifications"
    /// After this many failed messages in a row a run stops, whatever the failures: a server that
    /// refuses everything is not offered every due notification.
    public static let consecutiveFailureLimit = 5

    let connection: PostgresConnection
    let transport: MailTransport
    let options: NotifyOptions
    /// The database's name, part of every Message-ID.
    let database: String

    public init(connection: PostgresConnection, transport: MailTransport, options: NotifyOptions) throws {
        self.connection = connection
        self.transport = transport
        self.options = options
        try Migrator(connection: connection).requireCurrent()
        database = try connection.query("select current_database()").scalar(String.self)
    }

    /// Delivers everything due now; stops early when `shouldStop` says so, when a failure concerns
    /// more than its message (the server, the login), or after `consecutiveFailureLimit` failures
    /// in a row. A stopped run postpones the notifications it did not get to.
    public func deliverDue(shouldStop: () -> Bool = { false }) throws -> NotifySummary {
        var summary = NotifySummary()
        var failuresInARow = 0
        var previewed = Set<Int>()
        while !shouldStop() && summary.stop == nil {
            let handled = try connection.transaction { () throws -> Bool in
                let claimed = try claim(excluding: previewed)
                guard !claimed.isEmpty else { return false }
                try deliver(claimed, summary: &summary, failuresInARow: &failuresInARow)
                if options.preview { previewed.formUnion(claimed.map(\.notificationID)) }
                return true
            }
            if !handled { break }
        }
        if let stop = summary.stop, !options.preview { summary.postponed = try postponeDue(because: stop.message) }
        return summary
    }

    /// Stays up: delivers, then sleeps until LISTEN/NOTIFY says a join happened or a retry falls due.
    public func watch(pollInterval: Double = 30, shouldStop: () -> Bool,
                      report: (NotifySummary) -> Void) throws {
        try connection.listen(Self.channel)
        while !shouldStop() {
            let summary = try deliverDue(shouldStop: shouldStop)
            if summary != NotifySummary() { report(summary) }
            let wait = try secondsUntilNextDue().map { min(max($0, 0.05), pollInterval) } ?? pollInterval
            _ = try connection.waitForNotifications(timeout: wait)
        }
    }

    private func secondsUntilNextDue() throws -> Double? {
        try connection.query("""
            select extract(epoch from min(next_attempt_at) - now()) from notifications where status = 'pending'
            """).scalar(Double?.self)
    }

    private static let joinColumns = """
        select n.id, n.recipient_id, l.first_name, l.email, l.notifications_opt_out,
               s.first_name || ' ' || s.last_name, s.email, s.phone, s.school_year,
               g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location
        from notifications n
        join people l on l.id = n.recipient_id
        join memberships m on m.id = n.membership_id
        join people s on s.id = m.person_id
        join community_groups g on g.id = m.group_id
        """

    private struct Claimed {
        let join: MemberJoined
        let optedOut: Bool
        var notificationID: Int { join.notificationID }
    }

    /// The notifications due now, as `n`.
    private static let due: PostgresQuery =
        "n.status = 'pending' and n.next_attempt_at <= now() and n.membership_id is not null"

    /// Locks the next due notification, or for a digest every due notification of the next leader.
    private func claim(excluding previewed: Set<Int>) throws -> [Claimed] {
        let due: PostgresQuery = "\(Self.due) and not n.id = any(\(Array(previewed))::bigint[])"
        let query: PostgresQuery = options.digest
            ? """
              \(unescaped: Self.joinColumns)
              where \(due) and n.recipient_id = (select n.recipient_id from notifications n where \(due) order by n.id limit 1 for update skip locked)
              order by n.id for update of n skip locked
              """
            : "\(unescaped: Self.joinColumns) where \(due) order by n.id limit 1 for update of n skip locked"
        return try connection.query(query).rows.map { row in
            Claimed(join: MemberJoined(
                notificationID: try row.decode(Int.self, 0), leaderFirstName: try row.decode(String.self, 2),
                leaderEmail: try row.decode(String.self, 3), studentName: try row.decode(String.self, 5),
                studentEmail: try row.decode(String.self, 6), studentPhone: try row.decode(String?.self, 7),
                schoolYear: try row.decode(Int?.self, 8), groupName: try row.decode(String.self, 9),
                groupDay: try row.decode(String?.self, 10), groupTime: try row.decode(String?.self, 11),
                groupLocation: try row.decode(String?.self, 12)),
                optedOut: try row.decode(Bool.self, 4))
        }
    }

    private func deliver(_ claimed: [Claimed], summary: inout NotifySummary, failuresInARow: inout Int) throws {
        let skipped = claimed.filter(\.optedOut)
        if !skipped.isEmpty && !options.preview {
            try mark(skipped.map(\.notificationID), "status = 'skipped', last_error = 'leader opted out of notifications'")
        }
        summary.skipped += skipped.count
        let joins = claimed.filter { !$0.optedOut }.map(\.join)
        guard !joins.isEmpty else { return }
        let now = Date()
        let messages = options.digest
            ? [(NotificationMessage.digest(joins, from: options.from, date: now, database: database), joins.map(\.notificationID))]
            : joins.map { (NotificationMessage.single($0, from: options.from, date: now, database: self.database), [$0.notificationID]) }
        for (message, ids) in messages {
            do throws(MailError) {
                try transport.send(message)
            } catch {
                try recordFailure(ids, error: error, summary: &summary)
                failuresInARow += 1
                summary.stop = NotifyStop(error) ?? NotifyStop(failuresInARow: failuresInARow, last: error)
                if summary.stop != nil { return }
                continue
            }
            failuresInARow = 0
            if !options.preview {
                try mark(ids, "status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = null, message_id = \(message.messageID)")
            }
            summary.sent += ids.count
        }
    }

    /// Counts an attempt on the notifications of a failed message when the server judged it: it
    /// refused this message, or the session failed once the message was on its way (a recipient
    /// given). A failure before that (no connection, the login refused) is no try of the message;
    /// the stop it causes postpones the notifications without counting.
    private func recordFailure(_ ids: [Int], error: MailError, summary: inout NotifySummary) throws {
        let judged = error.scope == .message || (error.step ?? .connect) >= .recipient
        guard judged && !options.preview else { return }
        if error.isPermanent {
            try mark(ids, "status = 'failed', attempts = attempts + 1, last_error = \(error.message)")
            summary.failed += ids.count
            return
        }
        let result = try connection.query("""
            update notifications set attempts = attempts + 1, last_error = \(error.message),
                status = case when attempts + 1 >= \(options.maxAttempts) then 'dead' else 'pending' end,
                next_attempt_at = \(backoff)
            where id = any(\(ids)::bigint[]) returning status = 'dead'
            """)
        let dead = try result.rows.filter { try $0.decode(Bool.self, 0) }.count
        summary.dead += dead
        summary.retrying += result.rows.count - dead
    }

    /// After the run stopped: every notification still due waits for its backoff, attempts
    /// unchanged, so a server that is down or a refused login neither is hammered nor brings a
    /// notification closer to dead. Returns how many were postponed.
    private func postponeDue(because reason: String) throws -> Int {
        try connection.query("""
            update notifications set last_error = \(reason), next_attempt_at = \(backoff)
            where id in (select n.id from notifications n where \(Self.due) for update skip locked)
            """).affectedRows
    }

    /// The next attempt after a failure: the base delay doubled per attempt so far, ±50% jitter,
    /// at most 6 hours. From the clock, not the transaction's start, which is as old as the send.
    private var backoff: PostgresQuery {
        """
        clock_timestamp()
            + make_interval(secs => least(\(options.retryBase) * power(2, attempts) * (0.5 + random()), 21600))
        """
    }

    private func mark(_ ids: [Int], _ assignments: PostgresQuery) throws {
        try connection.query("update notifications set \(assignments) where id = any(\(ids)::bigint[])")
    }
}
