import PostgresClient

/// What `crubatch status` shows: rows per table, the latest import runs, and the notification outbox.
public struct StatusReport: Sendable, CommandReport {
    public struct TableCount: Sendable, Equatable, Encodable {
        public let table: String
        public let rows: Int
    }

    public let tables: [TableCount]
    /// Notifications per status, every kind together.
    public let notifications: [String: Int]
    /// Notifications per kind, then per status.
    public let notificationsByKind: [String: [String: Int]]
    public let deadNotifications: [String]

    private enum CodingKeys: String, CodingKey {
        case tables, notifications, notificationsByKind, deadNotifications
    }

    /// The statuses of a notification, in the order `status` lists them.
    public static let notificationStatuses = NotificationStatus.allCases.map(\.rawValue)

    public static let tables = [
        "campuses", "ministries", "people", "ministry_teams", "community_groups", "memberships", "events",
        "summer_missions", "resources", "ride_offers", "ride_requests", "attendance", "notifications", "import_runs",
    ]

    public static func load(from connection: PostgresConnection) throws -> StatusReport {
        try Migrator(connection: connection).requireCurrent()
        let countsSQL = SQLFragment(
            joining: tables.map { "select \(literal: $0) as t, count(*) as n from \(identifier: $0)" }, separator: " union all ")
        let counts = try connection.query(PostgresQuery(countsSQL)).rows.map {
            TableCount(table: try $0.decode(String.self, 0), rows: try $0.decode(Int.self, 1))
        }
        var byStatus: [String: Int] = [:]
        var byKind: [String: [String: Int]] = [:]
        for row in try connection.query("select kind, status, count(*) from notifications group by kind, status").rows {
            let kind = try row.decode(String.self, 0), status = try row.decode(String.self, 1)
            let count = try row.decode(Int.self, 2)
            byStatus[status, default: 0] += count
            byKind[kind, default: [:]][status] = count
        }
        let dead = try connection.query("""
            select n.id || ': to ' || coalesce(p.email, mi.contact_email) || ' after ' || n.attempts || ' attempts: '
                   || coalesce(n.last_error, '')
            from notifications n left join people p on p.id = n.recipient_id left join ministries mi on mi.id = n.ministry_id
            where n.status = \(unescaped: NotificationStatus.dead.sql) order by n.id limit 20
            """).rows.map { try $0.decode(String.self, 0) }
        return StatusReport(tables: counts, notifications: byStatus, notificationsByKind: byKind, deadNotifications: dead)
    }

    /// The report as aligned text for a terminal.
    public var text: String {
        var table = TextTable(headers: ["table", "rows"], alignments: [.left, .right], minimumWidths: [0, 6])
        for count in tables { table.append([count.table, String(count.rows)]) }
        var lines = table.lines
        lines.append("")
        let order = Self.notificationStatuses
        lines.append("notifications: " + order.map { "\(notifications[$0, default: 0]) \($0)" }.joined(separator: ", "))
        for (kind, counts) in notificationsByKind.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(kind): " + order.filter { counts[$0] != nil }.map { "\(counts[$0]!) \($0)" }.joined(separator: ", "))
        }
        for line in deadNotifications { lines.append("  dead \(line)") }
        return lines.joined(separator: "\n")
    }
}
