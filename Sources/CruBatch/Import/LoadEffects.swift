import PostgresClient

/// What follows from a load beyond its own rows, read from the database inside its transaction
/// before it commits (or rolls back, for a dry run): the memberships it ends, the current members of
/// the groups it archives, and the messages its writes queued in the outbox, per kind. The rows are
/// found by what this transaction wrote (`xmin`) and stamped (`now()`), so the database's own
/// triggers decide, and the preview says exactly what a real run does.
public struct LoadEffects: Sendable, Equatable, Encodable {
    /// A group the load archives and its current members (`group / First Last`): they leave its roster
    /// and its leaders are told nothing more of them; their memberships stay, for a restore.
    public struct ArchivedGroup: Sendable, Equatable, Encodable {
        public let group: String
        public let members: [String]
    }

    /// How many messages of one kind (`joined`, `left`, `welcome` ...) the load queued; `suppressed`
    /// ones (`--no-notify`, a migration) are recorded and never sent.
    public struct Queued: Sendable, Equatable, Encodable {
        public let kind: String
        public let count: Int
        public let suppressed: Bool
    }

    /// The memberships the load ends, `group / First Last`.
    public var endedMemberships: [String] = []
    public var archivedGroups: [ArchivedGroup] = []
    public var queuedMessages: [Queued] = []

    /// Reads the effects of what the open transaction wrote so far.
    static func read(on connection: PostgresConnection) throws -> LoadEffects {
        let memberships = KindSpec.of(.memberships)
        let label = memberships.keyLabel, joins = memberships.referenceJoins
        var effects = LoadEffects()
        effects.endedMemberships = try connection.query("""
            select \(unescaped: label) from memberships t \(unescaped: joins)
            where t.xmin = pg_current_xact_id()::xid and t.status = 'left' and t.ended_at = now() order by 1
            """).rows.map { try $0.decode(String.self, 0) }
        let members = try connection.query("""
            select g.code, \(unescaped: label) from memberships t \(unescaped: joins)
            where g.xmin = pg_current_xact_id()::xid and g.archived_at = now() and t.status <> 'left' order by 1, 2
            """).rows.map { try $0.decode((String, String).self) }
        effects.archivedGroups = Dictionary(grouping: members, by: \.0).sorted { $0.key < $1.key }
            .map { ArchivedGroup(group: $0.key, members: $0.value.map(\.1)) }
        effects.queuedMessages = try connection.query("""
            select kind, count(*)::int, status = \(unescaped: NotificationStatus.suppressed.sql) from notifications t
            where t.xmin = pg_current_xact_id()::xid and t.created_at = now() group by 1, 3 order by 3, 1
            """).rows.map { row in
            let (kind, count, suppressed) = try row.decode((String, Int, Bool).self)
            return Queued(kind: kind, count: count, suppressed: suppressed)
        }
        return effects
    }
}
