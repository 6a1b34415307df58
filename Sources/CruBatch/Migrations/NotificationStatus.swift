import PostgresClient

/// Where a message of the outbox stands, as `notifications.status` records it (a check constraint
/// allows these and no other), in the order `status` lists them.
enum NotificationStatus: String, Sendable, CaseIterable, PostgresEncodable {
    /// Waiting to be sent, now or after a back-off.
    case pending
    /// The last attempt failed; another may follow.
    case failed
    case sent
    /// The recipient opted out.
    case skipped
    /// Every attempt failed.
    case dead
    /// What it was about ended or went away before it was sent.
    case cancelled
    /// Recorded, never to be sent (`--no-notify`, a migration).
    case suppressed

    var postgresText: String { rawValue }

    /// The status as an SQL string constant, for statements crubatch builds itself.
    var sql: SQLFragment { SQLFragment(literal: rawValue) }
}
