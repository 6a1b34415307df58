import PostgresClient

/// `crubatch runs show RUN`: what one run changed, from `run_changes`: the number of rows per table
/// and operation, and with `rows` every row's before and after (in text, for an update the columns
/// that changed; for an insert or delete the whole row).
public struct RunDetails: Sendable, CommandReport {
    /// The run as `import_runs` records it.
    public struct Run: Sendable, Encodable {
        public let id: Int
        public let kind: String
        public let file: String
        public let status: String
        public let dryRun: Bool
        public let started: String
        public let user: String
        public let undone: String?
    }

    /// How many rows of a table an operation changed.
    public struct Count: Sendable, Encodable {
        public let table: String
        public let operation: String
        public let rows: Int
    }

    /// One changed row: its key and its images before and after the change.
    public struct Change: Sendable, Encodable {
        public let table: String
        public let key: JSONValue
        public let operation: String
        public let before: JSONValue?
        public let after: JSONValue?

        /// `people {"id":12} update: last_name "Li" -> "Lee", ...`.
        var text: String {
            let head = "\(table) \(key.compact) \(operation): "
            guard let before, let after else { return head + (after ?? before ?? .null).compact }
            let (old, new) = (before.members, after.members)
            let changed = new.keys.sorted().filter { old[$0] != new[$0] }
            return head + changed.map { "\($0) \((old[$0] ?? .null).compact) -> \((new[$0] ?? .null).compact)" }
                .joined(separator: ", ")
        }
    }

    static let operations = ["insert", "update", "archive", "end", "restore", "delete", "forget"]

    public let run: Run
    public let counts: [Count]
    /// Every change in order, with `--rows`.
    public let changes: [Change]?

    public static func load(_ runID: Int, rows: Bool, from connection: PostgresConnection) throws -> RunDetails {
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        guard let row = try connection.query("""
            select kind, file_name, status, dry_run, to_char(started_at, 'YYYY-MM-DD HH24:MI:SS'), coalesce(os_user, ''),
                   to_char(undone_at, 'YYYY-MM-DD HH24:MI:SS')
            from import_runs where id = \(runID)
            """).rows.first else {
            throw CruBatchError.usage("there is no run \(runID) (see `crubatch runs`)")
        }
        let run = Run(id: runID, kind: try row.decode(String.self, 0), file: try row.decode(String.self, 1),
                      status: try row.decode(String.self, 2), dryRun: try row.decode(Bool.self, 3),
                      started: try row.decode(String.self, 4), user: try row.decode(String.self, 5),
                      undone: try row.decode(String?.self, 6))
        let order = LoggedTable.dependencyOrder
        let counts = try connection.query("""
            select table_name, operation, count(*) from run_changes where run_id = \(runID) group by 1, 2
            """).rows.map { Count(table: try $0.decode(String.self, 0), operation: try $0.decode(String.self, 1),
                                  rows: try $0.decode(Int.self, 2)) }
            .sorted { (order.firstIndex(of: $0.table) ?? order.count, $0.operation) < (order.firstIndex(of: $1.table) ?? order.count, $1.operation) }
        let changes = !rows ? nil : counts.isEmpty ? [] : try changed(runID, tables: Set(counts.map(\.table)), on: connection)
        return RunDetails(run: run, counts: counts, changes: changes)
    }

    /// Every change of the run in order; a row is named by its id, or for a list row by its key.
    private static func changed(_ runID: Int, tables: Set<String>, on connection: PostgresConnection) throws -> [Change] {
        let keys = SQLFragment(joining: try LoggedTable.load(tables, from: connection).map { table -> SQLFragment in
            "when \(literal: table.name) then \(table.key(of: "coalesce(c.after, c.before)"))"
        }, separator: " ")
        return try connection.query("""
            select c.table_name, case when c.row_id is not null then jsonb_build_object('id', c.row_id)
                                      else case c.table_name \(unescaped: keys) end end,
                   c.operation, c.before, c.after
            from run_changes c where c.run_id = \(runID) order by c.id
            """).rows.map { row in
            Change(table: try row.decode(String.self, 0), key: JSONValue(text: try row.decode(String.self, 1)) ?? .null,
                   operation: try row.decode(String.self, 2), before: try row.decode(String?.self, 3).flatMap(JSONValue.init(text:)),
                   after: try row.decode(String?.self, 4).flatMap(JSONValue.init(text:)))
        }
    }

    /// The run, a table of rows per table and operation, and with `--rows` one line per change.
    public var text: String {
        var lines = [
            "run \(run.id): \(RunLog.description(kind: run.kind, file: run.file))",
            "\(run.status)\(run.dryRun ? " (dry run)" : ""), started \(run.started) UTC by \(run.user)"
                + (run.undone.map { ", undone \($0) UTC" } ?? ""),
            "",
        ]
        guard !counts.isEmpty else { return (lines + ["it changed no rows"]).joined(separator: "\n") }
        let used = Self.operations.filter { operation in counts.contains { $0.operation == operation } }
        var table = TextTable(headers: ["table"] + used, alignments: [.left] + used.map { _ in .right })
        var tables: [String] = []
        for count in counts where !tables.contains(count.table) { tables.append(count.table) }
        for name in tables {
            table.append([name] + used.map { operation in
                String(counts.first { $0.table == name && $0.operation == operation }?.rows ?? 0)
            })
        }
        lines += table.lines
        if let changes { lines += [""] + changes.map(\.text) }
        return lines.joined(separator: "\n")
    }
}
