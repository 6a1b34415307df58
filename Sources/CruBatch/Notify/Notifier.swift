import Foundation
import Mailer
import PostgresClient

/// How `notify` delivers.
public struct NotifyOptions: Sendable {
    /// Digests of a recipient's messages (of the kinds that allow them): always (`--digest`),
    /// never (`--no-digest`), or when the recipient has more than `digestOver` due (nil, the default).
    public var digest: Bool?
    public var digestOver = 3
    /// A folder of templates (`NAME.mustache`) replacing the compiled-in wording (`--templates`).
    public var templates: URL?
    /// `--now`: send pending notifications still waiting for their backoff too.
    public var ignoreBackoff = false
    /// After this many failed attempts a notification is `dead`.
    public var maxAttempts = 8
    /// The first retry waits this long; each further one twice as long (with ±50% jitter), at most 6 hours.
    public var retryBase: Double = 60
    public var from = EmailAddress("crubatch@localhost", name: "Cru community groups")
    /// Preview: render and hand to the transport, but change nothing in the database.
    public var preview = false

    public init() {}
}

/// Delivers the notifications outbox: claims due rows with `FOR UPDATE SKIP LOCKED` (so several
/// `notify` processes never send the same row), sends, and marks each row sent, committing each
/// message as it goes, so a crash re-sends at most the message in flight (with the same Message-ID).
///
/// Given a way to `reconnect`, it lives through a database failover: when the connection is lost it
/// connects again (to the new primary, for a multi-host URL with `target_session_attrs=read-write`)
/// and first marks sent again the messages it sent whose mark the lost connection had not
/// committed, so that no message is sent twice because of the failover.
public final class Notifier {
    public static let channel = "crubatch_notifications"
    /// After this many failed messages in a row a run stops, whatever the failures: a server that
    /// refuses everything is not offered every due notification.
    public static let consecutiveFailureLimit = 5
    /// The kinds of message, as `--preview` takes them: `joined, welcome, left, ride-paired ...`.
    public static var kindNames: String { NotificationKind.names }

    private(set) var connection: PostgresConnection
    /// Opens a new connection after the old one was lost; nil: a lost connection ends the run.
    let reconnect: (() throws -> PostgresConnection)?
    /// How long a lost connection is tried again before the run gives up (exit 75).
    let reconnectTimeout: Double
    /// Messages sent whose `sent` mark is not known to be committed: confirmed again after a reconnect.
    private var unconfirmed: [(ids: [Int], messageID: String)] = []
    /// `watch` listens for new joins: a new connection listens again.
    private var listening = false
    let transport: MailTransport
    let options: NotifyOptions
    let templates: NotificationTemplates
    /// The database's name, part of every Message-ID.
    let database: String

    /// Loads the templates first: a template that cannot be used (`TemplateError`) stops the run
    /// before anything is claimed.
    public init(connection: PostgresConnection, transport: MailTransport, options: NotifyOptions,
                reconnect: (() throws -> PostgresConnection)? = nil, reconnectTimeout: Double = 60) throws {
        templates = try NotificationTemplates(directory: options.templates)
        self.connection = connection
        self.reconnect = reconnect
        self.reconnectTimeout = reconnectTimeout
        self.transport = transport
        self.options = options
        try Migrator(connection: connection).requireCurrent()
        database = try connection.query("select current_database()").scalar(String.self)
    }

    /// Delivers everything due now; stops early when `shouldStop` says so, when a failure concerns
    /// more than its message (the server, the login), or after `consecutiveFailureLimit` failures
    /// in a row. A stopped run postpones the notifications it did not get to. The summary says
    /// when the next of those left waiting falls due.
    public func deliverDue(shouldStop: () -> Bool = { false }) throws -> NotifySummary {
        var summary = NotifySummary()
        summary.preview = options.preview
        var failuresInARow = 0
        var previewed = Set<Int>()
        while !shouldStop() && summary.stop == nil {
            let handled: Bool
            do {
                handled = try connection.transaction { () throws -> Bool in
                    let claimed = try claim(excluding: previewed)
                    guard !claimed.ids.isEmpty else { return false }
                    try deliver(claimed, summary: &summary, failuresInARow: &failuresInARow)
                    if options.preview { previewed.formUnion(claimed.ids) }
                    return true
                }
                unconfirmed = []
            } catch let error as PostgresError where error.primaryLost && reconnect != nil {
                try recover(from: error)
                summary.reconnections += 1
                continue
            }
            if !handled { break }
        }
        if let stop = summary.stop, !options.preview { summary.postponed = try postponeDue(because: stop.message) }
        try noteNextRetry(in: &summary)
        return summary
    }

    /// Stays up: delivers, then sleeps until LISTEN/NOTIFY says a join happened or a retry falls due.
    public func watch(pollInterval: Double = 30, shouldStop: () -> Bool,
                      report: (NotifySummary) -> Void) throws {
        try connection.listen(Self.channel)
        listening = true
        defer { listening = false }
        while !shouldStop() {
            let summary = try deliverDue(shouldStop: shouldStop)
            if summary.didAnything { report(summary) }
            let wait = summary.nextRetryInSeconds.map { min(max(Double($0), 0.05), pollInterval) } ?? pollInterval
            do throws(PostgresError) {
                _ = try connection.waitForNotifications(timeout: wait)
            } catch {
                guard error.primaryLost, reconnect != nil else { throw error }
                try recover(from: error)
            }
        }
    }

    /// Connects again after `lost`, trying once a second until `reconnectTimeout` (a failover takes
    /// seconds), then marks sent the messages the lost connection had not confirmed, where no other
    /// run did so meanwhile. Throws `lost` when no server takes the connection in time.
    private func recover(from lost: PostgresError) throws {
        guard let reconnect else { throw lost }
        let deadline = Date().addingTimeInterval(reconnectTimeout)
        while true {
            do {
                connection = try reconnect()
                break
            } catch let error as PostgresError where error.kind == .connection && Date() < deadline {
                Thread.sleep(forTimeInterval: 1)
            } catch let error as PostgresError where error.kind == .connection {
                throw lost
            }
        }
        try connection.transaction {
            for (ids, messageID) in unconfirmed {
                try connection.query("""
                    update notifications set status = \(unescaped: NotificationStatus.sent.sql), sent_at = now(), attempts = attempts + 1,
                    last_error = null, message_id = \(messageID)
                    where id = any(\(ids)::bigint[]) and status <> \(unescaped: NotificationStatus.sent.sql)
                    """)
            }
        }
        unconfirmed = []
        if listening { try connection.listen(Self.channel) }
    }

    /// Renders the notification `id` as it would be sent, for `notify --preview`.
    func message(for id: Int, kind: NotificationKind) throws -> EmailMessage? {
        try kind.subject.notices([id], connection: connection).first.map {
            NotificationMessage.single($0, templates: templates, from: options.from, date: Date(), database: database)
        }
    }

    /// Pending notifications still waiting: how many, and when the first falls due.
    func noteNextRetry(in summary: inout NotifySummary) throws {
        let row = try connection.query("""
            select count(*), to_char(min(n.next_attempt_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                   ceil(extract(epoch from min(n.next_attempt_at) - clock_timestamp()))::bigint
            from notifications n where n.status = \(unescaped: NotificationStatus.pending.sql) and n.next_attempt_at > clock_timestamp()
            and \(NotificationKind.sendable)
            """).rows[0]
        summary.waiting = try row.decode(Int.self, 0)
        summary.nextRetryAt = try row.decode(String?.self, 1)
        summary.nextRetryInSeconds = try row.decode(Int?.self, 2).map { max($0, 0) }
    }

    /// The notifications, as `n`, due now (with `--now`, every pending one).
    private var due: PostgresQuery {
        let pending: PostgresQuery = "n.status = \(unescaped: NotificationStatus.pending.sql) and \(NotificationKind.sendable)"
        return options.ignoreBackoff ? pending : "\(pending) and n.next_attempt_at <= now()"
    }

    /// Notifications claimed (locked): each a message of its own, or the one digest listing them all.
    private struct Claim {
        var ids: [Int]
        /// The digest listing them all; nil for one message each.
        var digest: NotificationDigest?
    }

    /// A due notification as a claim first sees it: whose, and the digest its kind may go in.
    private struct Due {
        let id: Int
        let recipient: String
        let digest: NotificationDigest?
    }

    /// Who receives a notification `n`, as one text: a person (`p12`) or a ministry's contact (`m3`).
    private static let recipient: PostgresQuery = "coalesce('p' || n.recipient_id, 'm' || n.ministry_id)"

    /// How many due notifications one claim locks when each is a message of its own: the claim and
    /// their notices are one query each for all of them, while every message is still committed as
    /// it is sent (`keepClaimed`).
    static let claimBatch = 50

    /// Locks the next due notifications: up to `claimBatch` of them, each a message of its own, up to
    /// the first whose recipient gets a digest; or, when that is the first, it and the others of its
    /// recipient that share its digest (always with `--digest`; by default when the recipient has
    /// more than `digestOver` of them due).
    private func claim(excluding previewed: Set<Int>) throws -> Claim {
        let due: PostgresQuery = "\(due) and not n.id = any(\(Array(previewed))::bigint[])"
        let rows = try connection.query("""
            select n.id, n.kind, \(Self.recipient) from notifications n where \(due)
            order by n.id limit \(Self.claimBatch) for update skip locked
            """).rows.map { row in
            let digest = NotificationKind.named(try row.decode(String.self, 1))?.digest
            return Due(id: try row.decode(Int.self, 0), recipient: try row.decode(String.self, 2),
                       digest: options.digest == false && digest?.always != true ? nil : digest)
        }
        guard let first = rows.first else { return Claim(ids: [], digest: nil) }
        // Per digest, the recipients whose messages of its kinds go as that digest.
        var digested: [NotificationDigest: Set<String>] = [:]
        for digest in Set(rows.compactMap(\.digest)) {
            let recipients = Array(Set(rows.filter { $0.digest == digest }.map(\.recipient)))
            digested[digest] = options.digest == true || digest.always ? Set(recipients) : Set(try connection.query("""
                select \(Self.recipient) from notifications n
                where \(due) and \(Self.recipient) = any(\(recipients)::text[])
                and n.kind = any(\(digest.kinds.map(\.name))::text[])
                group by 1 having count(*) > \(options.digestOver)
                """).rows.map { try $0.decode(String.self, 0) })
        }
        func inDigest(_ row: Due) -> Bool { row.digest.map { digested[$0, default: []].contains(row.recipient) } ?? false }
        guard let digest = first.digest, inDigest(first) else {
            return Claim(ids: rows.prefix { !inDigest($0) }.map(\.id), digest: nil)
        }
        let ids = try connection.query("""
            select n.id from notifications n
            where \(due) and \(Self.recipient) = \(first.recipient) and n.kind = any(\(digest.kinds.map(\.name))::text[])
            order by n.id for update skip locked
            """).rows.map { try $0.decode(Int.self, 0) }
        return Claim(ids: ids, digest: digest)
    }

    /// Commits what the messages so far did (`sent`: the mark of the one just sent, run first), so a
    /// crash re-sends at most the message in flight, and locks again those of `ids` still due: one
    /// that another `notify` took in between is its to send. One round trip to the server.
    private func keepClaimed(_ ids: [Int], after sent: PostgresQuery?) throws -> Set<Int> {
        let relock: PostgresQuery = """
            select n.id from notifications n where n.id = any(\(ids)::bigint[]) and \(due) for update skip locked
            """
        let results = try connection.pipeline((sent.map { [$0] } ?? []) + ["COMMIT", "BEGIN", relock])
        unconfirmed = []
        return Set(try results[results.count - 1].rows.map { try $0.decode(Int.self, 0) })
    }

    /// The claimed notifications' notices, subject by subject; those whose subject is gone are
    /// cancelled.
    private func notices(_ ids: [Int]) throws -> [Notice] {
        let kinds = try connection.query("select n.kind from notifications n where n.id = any(\(ids)::bigint[])")
            .rows.compactMap { NotificationKind.named(try $0.decode(String.self, 0)) }
        var notices: [Notice] = []
        for subject in NotificationSubject.allCases where kinds.contains(where: { $0.subject == subject }) {
            notices += try subject.notices(ids, connection: connection)
        }
        let gone = Set(ids).subtracting(notices.map(\.id))
        if !gone.isEmpty && !options.preview {
            try mark(Array(gone), "status = \(unescaped: NotificationStatus.cancelled.sql), last_error = 'what it was about no longer exists'")
        }
        return notices.sorted { $0.id < $1.id }
    }

    private func deliver(_ claim: Claim, summary: inout NotifySummary, failuresInARow: inout Int) throws {
        let notices = try notices(claim.ids)
        let skipped = notices.filter(\.optedOut)
        if !skipped.isEmpty && !options.preview {
            try mark(skipped.map(\.id), "status = \(unescaped: NotificationStatus.skipped.sql), last_error = 'the recipient opted out of notifications'")
        }
        summary.skipped += skipped.count
        let sending = notices.filter { !$0.optedOut }
        guard !sending.isEmpty else { return }
        let now = Date()
        let messages = claim.digest.map { digest in
            [(NotificationMessage.digest(sending, as: digest, templates: templates, from: options.from, date: now,
                                         database: database), sending.map(\.id))]
        } ?? sending.map {
            (NotificationMessage.single($0, templates: templates, from: options.from, date: now, database: database),
             [$0.id])
        }
        var held = Set(claim.ids)
        // The mark of the message just sent, run with the next claim check or at the end.
        var sent: PostgresQuery?
        for (index, (message, ids)) in messages.enumerated() {
            if index > 0 && !options.preview {
                held = try keepClaimed(messages[index...].flatMap(\.1), after: sent)
                sent = nil
            }
            guard ids.allSatisfy(held.contains) else { continue }
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
            if options.preview {
                summary.previewed += ids.count
                continue
            }
            unconfirmed.append((ids, message.messageID))
            sent = Self.marking(ids, """
                status = \(unescaped: NotificationStatus.sent.sql), sent_at = now(), attempts = attempts + 1, last_error = null, \
                message_id = \(message.messageID)
                """)
            summary.sent += ids.count
            summary.emails += 1
        }
        if let sent { try connection.queryPrepared(sent) }
    }

    /// Counts an attempt on the notifications of a failed message when the server judged it: it
    /// refused this message, or the session failed once the message was on its way (a recipient
    /// given). A failure before that (no connection, the login refused) is no try of the message;
    /// the stop it causes postpones the notifications without counting.
    private func recordFailure(_ ids: [Int], error: MailError, summary: inout NotifySummary) throws {
        let judged = error.scope == .message || (error.step ?? .connect) >= .recipient
        guard judged && !options.preview else { return }
        if error.isPermanent {
            try mark(ids, "status = \(unescaped: NotificationStatus.failed.sql), attempts = attempts + 1, last_error = \(error.message)")
            summary.failed += ids.count
            return
        }
        let result = try connection.query("""
            update notifications set attempts = attempts + 1, last_error = \(error.message),
                status = case when attempts + 1 >= \(options.maxAttempts) then \(unescaped: NotificationStatus.dead.sql) else \(unescaped: NotificationStatus.pending.sql) end,
                next_attempt_at = \(backoff)
            where id = any(\(ids)::bigint[]) returning status = \(unescaped: NotificationStatus.dead.sql)
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
            where id in (select n.id from notifications n where \(due) for update skip locked)
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
        try connection.queryPrepared(Self.marking(ids, assignments))
    }

    private static func marking(_ ids: [Int], _ assignments: PostgresQuery) -> PostgresQuery {
        "update notifications set \(assignments) where id = any(\(ids)::bigint[])"
    }
}

extension Notifier {
    /// One message of `kind` rendered from real data, as it would be sent: a pending one, else
    /// the most recent. Changes nothing.
    public func preview(kind name: String) throws -> EmailMessage {
        guard let kind = NotificationKind.named(name) else {
            throw CruBatchError.usage("--preview takes a kind of message: \(NotificationKind.names) (got \"\(name)\")")
        }
        let ids = try connection.query("""
            select n.id from notifications n where n.kind = \(kind.name) and \(NotificationKind.sendable)
            order by n.status = \(unescaped: NotificationStatus.pending.sql) desc, n.id desc limit 1
            """).rows.map { try $0.decode(Int.self, 0) }
        guard let id = ids.first, let message = try message(for: id, kind: kind) else {
            throw CruBatchError.refused("no \(kind.name) notification to preview: none has been queued yet")
        }
        return message
    }
}
