import Foundation
import PostgresClient

/// One field a load changes: the column, its stored value and the value it gets (nil: blank).
public struct FieldChange: Sendable, Equatable, Codable {
    public let column: String
    public let old: String?
    public let new: String?
}

/// A stored row a load changes, by key as people read it, with each field that changes.
public struct RowChange: Sendable, Equatable, Codable {
    public let key: String
    public let fields: [FieldChange]
}

/// What one file changes row by row: the rows it inserts, the stored rows whose fields change, and
/// the archived rows it restores (with the fields that change as they come back). The rows it
/// archives are `KindCounts.archivedRows`.
public struct KindChanges: Sendable, Equatable, Encodable {
    public var inserted: [String] = []
    public var updated: [RowChange] = []
    public var restored: [RowChange] = []
}

/// Computes a file's `KindChanges` inside the import's transaction: `snapshot()` before the merge
/// keeps the stored rows the staged rows name, as export writes them, and `changes()` after the
/// merge (and the sync) compares them with what the same rows hold then, column by column. So the
/// preview shows what the merge really does (blank cells kept, lists, references by their codes),
/// not a second guess at it; a dry run then rolls everything back.
struct ChangePreview {
    let spec: KindSpec
    let connection: PostgresConnection

    /// Keeps the stored rows the staged rows name, as they are before the merge.
    func snapshot() throws {
        try connection.execute("create temp table preview_before on commit drop as \(unescaped: spec.stagedImageSQL)")
    }

    /// What the merge changed in the rows the staged rows name, ordered by key.
    func changes() throws -> KindChanges {
        // The statistics of a dry run's table are those of before its load (a dry run does not
        // analyze): a first load of 200,000 rows would be planned as a nested loop over them.
        try PlannerSettings.hashJoins.apply(on: connection) { try compared() }
    }

    private func compared() throws -> KindChanges {
        try connection.execute("create temp table preview_after on commit drop as \(unescaped: spec.stagedImageSQL)")
        defer { try? connection.execute("drop table if exists preview_before, preview_after") }
        let fields = SQLFragment(joining: spec.columns.enumerated().map { index, column -> SQLFragment in
            "(\(literal: column.name), b.c\(index), a.c\(index))"
        }, separator: ", ")
        let sql: SQLFragment = """
            select a.key, b.id is null as inserted, coalesce(b.retired and not a.retired, false) as restored,
                case when b.id is null then '[]' else coalesce((
                    select json_agg(json_build_object('column', f.name, 'old', f.old, 'new', f.new))
                    from (values \(fields)) f(name, old, new)
                    where f.old is distinct from f.new), '[]')::text end as fields
            from preview_after a left join preview_before b on b.id = a.id
            where b.id is null or b.retired <> a.retired or \(fieldsDiffer)
            order by a.key
            """
        var changes = KindChanges()
        let decoder = JSONDecoder()
        for row in try connection.query(PostgresQuery(sql)).rows {
            let (key, inserted, restored, json) = try row.decode((String, Bool, Bool, String).self)
            if inserted {
                changes.inserted.append(key)
                continue
            }
            let change = RowChange(key: key, fields: try decoder.decode([FieldChange].self, from: Data(json.utf8)))
            if restored {
                changes.restored.append(change)
            } else if !change.fields.isEmpty {
                changes.updated.append(change)
            }
        }
        return changes
    }

    /// SQL over the before image `b` and the after image `a`: true when a column's value differs.
    private var fieldsDiffer: SQLFragment {
        let before = SQLFragment(joining: spec.columns.indices.map { "b.c\($0)" }, separator: ", ")
        let after = SQLFragment(joining: spec.columns.indices.map { "a.c\($0)" }, separator: ", ")
        return "row(\(before)) is distinct from row(\(after))"
    }
}
