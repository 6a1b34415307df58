import PostgresClient

/// What the writes of one transaction queue, read by the outbox triggers (docs/ARCHITECTURE.md,
/// "The outbox"): notifications that go (or are recorded as `suppressed`), and for joins students'
/// welcomes.
public struct JoinMessages: Sendable, Equatable {
    /// False: every notification queued is `suppressed`, never sent (`--no-notify`).
    public var notify: Bool
    /// True: each new membership also queues a `welcome` to its student.
    public var welcome: Bool

    public init(notify: Bool = true, welcome: Bool = false) {
        self.notify = notify
        self.welcome = welcome
    }

    /// Tells the triggers, for the rest of the current transaction.
    func apply(on connection: PostgresConnection) throws {
        try connection.query("""
            select set_config('crubatch.notify', \(notify ? "on" : "off"), true),
                   set_config('crubatch.welcome', \(welcome ? "on" : "off"), true)
            """)
    }
}
