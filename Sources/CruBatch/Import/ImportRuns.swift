import Foundation
import PostgresClient

/// The run history `crubatch runs` lists, newest first: imports (by kind), `place` and `forget` runs,
/// with what each wrote (restored `rst`, archived or ended `arch`), and `undone` once undone. A run
/// still `running` whose process is gone (it no longer holds its advisory lock) is shown as `killed`.
public struct ImportRuns: CommandReport {
    /// One run: what it read and wrote, and how it ended.
    public struct Run: Sendable, Encodable {
        public let id: Int
        public let started: String
        public let kind: String
        public let file: String
        public let status: String
        public let dryRun: Bool
        public let read: Int
        public let inserted: Int
        public let updated: Int
        public let restored: Int
        public let unchanged: Int
        public let archived: Int
        public let rejected: Int
        public let seconds: Double?
        public let user: String
    }

    public let runs: [Run]

    /// The newest `limit` runs.
    public static func load(_ limit: Int, from connection: PostgresConnection) throws -> ImportRuns {
        try Migrator(connection: connection).requireCurrent()
        let rows = try connection.query("""
            select id, to_char(started_at, 'YYYY-MM-DD HH24:MI:SS'), kind, file_name,
                   case when status = \(RunStatus.running) and not exists (
                       select 1 from pg_locks l join pg_database d on d.oid = l.database
                       where d.datname = current_database() and l.locktype = 'advisory' and l.objsubid = 2
                       and l.classid = \(RunLog.lockSpace) and l.objid = r.id)
                   then 'killed' else status end,
                   dry_run, rows_read, rows_inserted, rows_updated, rows_restored, rows_unchanged, rows_archived, rows_rejected,
                   round(extract(epoch from finished_at - started_at)::numeric, 2)::float8, coalesce(os_user, '')
            from import_runs r order by id desc limit \(limit)
            """).rows
        return ImportRuns(runs: try rows.map { row in
            Run(id: try row.decode(Int.self, 0), started: try row.decode(String.self, 1), kind: try row.decode(String.self, 2),
                file: try row.decode(String.self, 3), status: try row.decode(String.self, 4),
                dryRun: try row.decode(Bool.self, 5), read: try row.decode(Int.self, 6), inserted: try row.decode(Int.self, 7),
                updated: try row.decode(Int.self, 8), restored: try row.decode(Int.self, 9),
                unchanged: try row.decode(Int.self, 10), archived: try row.decode(Int.self, 11),
                rejected: try row.decode(Int.self, 12), seconds: try row.decode(Double?.self, 13),
                user: try row.decode(String.self, 14))
        })
    }

    /// An aligned table with a header line; `ins` and `upd` are what the run wrote.
    public var text: String {
        let headers = ["id", "started", "kind", "file", "status", "dry", "read", "ins", "upd", "rst", "same", "arch", "rej",
                       "seconds", "user"]
        var table = TextTable(headers: headers, alignments: Array(repeating: .left, count: headers.count))
        for run in runs {
            table.append([String(run.id), run.started, run.kind, run.file, run.status, run.dryRun ? "yes" : "no",
                          String(run.read), String(run.inserted), String(run.updated), String(run.restored),
                          String(run.unchanged), String(run.archived), String(run.rejected), run.seconds.map { String(format: "%.2f", $0) } ?? "-", run.user])
        }
        return table.text
    }
}
