import Foundation
import PostgresClient

/// The import history `crubatch runs` lists, newest first.
public struct ImportRuns {
    static let columns = ["id", "started", "kind", "file", "status", "dry", "read", "ins", "upd", "same", "rej", "seconds", "user"]

    /// The newest `limit` runs as an aligned table with a header line.
    public static func table(_ limit: Int, from connection: PostgresConnection) throws -> String {
        var table = TextTable(headers: columns, alignments: Array(repeating: .left, count: columns.count))
        try latest(limit, from: connection).forEach { table.append($0) }
        return table.text
    }

    /// The newest `limit` runs as rows of text, in `columns` order.
    static func latest(_ limit: Int, from connection: PostgresConnection) throws -> [[String]] {
        try Migrator(connection: connection).requireCurrent()
        return try connection.query("""
            select id, to_char(started_at, 'YYYY-MM-DD HH24:MI:SS'), kind, file_name, status,
                   case when dry_run then 'yes' else 'no' end, rows_read, rows_inserted, rows_updated,
                   rows_unchanged, rows_rejected,
                   coalesce(to_char(extract(epoch from finished_at - started_at), 'FM990.00'), '-'), coalesce(os_user, '')
            from import_runs order by id desc limit \(limit)
            """).rows.map { row in try columns.indices.map { try row.decode(String?.self, $0) ?? "" } }
    }
}
