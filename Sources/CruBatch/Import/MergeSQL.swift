import PostgresClient

/// The set-based SQL that moves a kind's staged rows into its table: one UPDATE for changed rows,
/// one INSERT for new ones, and for list relations (a group's leaders...) one sync each. Unchanged
/// rows are not touched, so their `updated_at` stays as it was.
///
/// For kinds with lists, the rows each statement changed are recorded in `merge_touched` (and rows
/// inserted or restored in `merge_fresh`), so a row whose only change is its list gets `updated_at`
/// bumped once and counts as updated, without a per-row comparison of lists.
///
/// An archived row (or ended membership) that the file lists again is restored by the same UPDATE
/// and counted as restored, not updated.
///
/// New rows and child rows are inserted in the order of their unique indexes, so each index grows
/// at its right edge and the foreign-key checks read the parents in order: on a first load of a
/// million students that halves the time of both inserts (docs/ARCHITECTURE.md, "Speed").
struct MergeSQL {
    let spec: KindSpec
    let blank: ImportOptions.Blank

    private var resolved: String { "(\(spec.resolveSQL)) n" }
    private var keep: Bool { blank == .keep }
    private var tracksLists: Bool { !spec.lists.isEmpty }

    /// The value an update gives `column`. A blank cell keeps the stored value (`--blank keep`),
    /// except in the column holding a retired row's state, which a listed row resets to its default.
    private func newValue(_ column: TargetColumn) -> String {
        if keep {
            guard let retirement = spec.retirement, retirement.stateColumn == column.name else {
                return "coalesce(n.\(column.name), t.\(column.name))"
            }
            let stored = "case when \(retirement.isRetired(over: "t")) then \(column.insertDefault ?? "null") else t.\(column.name) end"
            return "coalesce(n.\(column.name), \(stored))"
        }
        return column.insertDefault.map { "coalesce(n.\(column.name), \($0))" } ?? "n.\(column.name)"
    }

    /// Temp tables for the bookkeeping (kinds with lists only).
    var setup: [PostgresQuery] {
        tracksLists ? ["create temp table merge_touched (id bigint not null, scalar boolean not null) on commit drop",
                       "create temp table merge_fresh (id bigint not null) on commit drop"] : []
    }

    var teardown: [PostgresQuery] { tracksLists ? ["drop table merge_touched", "drop table merge_fresh"] : [] }

    /// Whether a stored row `t` differs from its new `values` in `columns`, or comes back from being
    /// retired.
    private func differs(_ columns: [String], from values: [String]) -> String {
        let changes = "row(\(columns.map { "t.\($0)" }.joined(separator: ", "))) is distinct from "
            + "row(\(values.joined(separator: ", ")))"
        return spec.retirement?.comesBack(over: "t").map { "(\(changes) or \($0))" } ?? changes
    }

    /// Updates rows whose values differ and restores retired rows the file lists; selects how many
    /// were updated and how many restored. The stored row's old state comes from a second reference
    /// to the table (`o`), since RETURNING sees the new one.
    var update: String {
        let columns = spec.targetColumns.filter(\.updatable)
        let assignments = (columns.map { "\($0.name) = \(newValue($0))" } + (spec.retirement?.restore.map(\.sql) ?? []))
            .joined(separator: ", ")
        let changes = differs(columns.map(\.name), from: columns.map(newValue))
        var from = resolved, match = spec.keyMatch, restored = "false"
        if let retirement = spec.retirement {
            from += ", \(spec.table) o"
            match += " and o.id = t.id"
            restored = "\(retirement.isRetired(over: "o")) and \(retirement.isCurrent(over: "t"))"
        }
        var record = ""
        if tracksLists {
            record = ", recorded as (insert into merge_touched select id, true from changed)"
                + ", restored as (insert into merge_fresh select id from changed where restored)"
        }
        return """
            with changed as (update \(spec.table) t set \(assignments) from \(from)
            where \(match) and \(changes) returning t.id, \(restored) as restored)\(record)
            select count(*) filter (where not restored), count(*) filter (where restored) from changed
            """
    }

    /// The resolved key columns, in the order of the kind's unique index on them.
    private var keyOrder: String { spec.keyColumns.map { "n.\($0)" }.joined(separator: ", ") }

    /// Selects whether the table holds any staged key already. When it holds none (a first load), the
    /// merge is `insert(recording: false)` and `listSync(allNew: true)`: nothing to update, compare or record.
    var anyStored: String { "select exists (select 1 from \(resolved) join \(spec.table) t on \(spec.keyMatch))" }

    /// Inserts rows whose key is new, in key order; selects how many. `recording`: the new rows go in
    /// `merge_fresh` too (after `setup`, for `finishLists`).
    func insert(recording: Bool) -> String {
        let record = tracksLists && recording ? ", recorded as (insert into merge_fresh select id from inserted)" : ""
        return """
            with inserted as (insert into \(spec.table) (\(insertedColumns.joined(separator: ", ")))
            select \(insertedValues.joined(separator: ", ")) from \(resolved)
            where not exists (select 1 from \(spec.table) t where \(spec.keyMatch)) order by \(keyOrder) returning id)\(record)
            select count(*) from inserted
            """
    }

    /// The columns an insert sets: the key, then the target columns.
    private var insertedColumns: [String] { spec.keyColumns + spec.targetColumns.map(\.name) }

    /// A new row's values over the resolved row `n`, in the order of `insertedColumns`.
    private var insertedValues: [String] {
        spec.keyColumns.map { "n.\($0)" }
            + spec.targetColumns.map { column in
                column.insertDefault.map { "coalesce(n.\(column.name), \($0))" } ?? "n.\(column.name)"
            }
    }

    /// One statement that inserts the staged rows whose key is new and updates the stored rows whose
    /// values differ, in the order of the staged lines, writing every staged value (as `--blank
    /// clear`); returns the id of each row it inserted or changed. Every stored row it lists is locked
    /// until the transaction ends, an unchanged one too. For a writer that decides its few rows in
    /// memory (`place`), not for a file: it neither counts restored rows nor syncs lists, and a
    /// conflict on the key is found row by row. A stored row is updated only where `condition` (over
    /// `t`) holds too, when one is given.
    func upsert(updatingOnlyWhere condition: SQLFragment? = nil) -> String {
        precondition(!keep && !tracksLists, "an upsert writes every staged value and no list")
        // An expression in the index (`lower(email)`) is named in parentheses.
        let conflict = spec.comparedKeys().map { $0.lowered ? "(\($0.expression))" : $0.expression }
        let columns = spec.targetColumns.filter(\.updatable).map(\.name)
        let assignments = columns.map { "\($0) = excluded.\($0)" } + (spec.retirement?.restore.map(\.sql) ?? [])
        var changes = differs(columns, from: columns.map { "excluded.\($0)" })
        if let condition { changes += " and (\(condition))" }
        return """
            insert into \(spec.table) as t (\(insertedColumns.joined(separator: ", ")))
            select \(insertedValues.joined(separator: ", ")) from \(resolved) order by n.line
            on conflict (\(conflict.joined(separator: ", "))) do update set \(assignments.joined(separator: ", "))
            where \(changes)
            returning t.id
            """
    }

    /// Statements that make each list relation's child rows match the staged lists. When every staged
    /// row was just inserted (`allNew`, a first load), there are no old children to remove and nothing
    /// to record: the children are inserted by one statement, without `setup`'s tables.
    func listSync(allNew: Bool) -> [String] {
        spec.lists.flatMap { column, list -> [String] in
            let value = list.reference == nil ? "ord.v" : "r.id"
            let join = list.reference.map { " join \($0.table) r on \($0.key(over: "r")) = ord.v" } ?? ""
            let onlyGiven = keep ? " where n.\(column.name) is not null" : ""
            let child = list.childTable, parent = list.parentColumn, valueColumn = list.valueColumn
            let listed = "select t.id as parent, n.\(column.name) as list from \(resolved) join \(spec.table) t on \(spec.keyMatch)\(onlyGiven)"
            func desired(from listed: String) -> String {
                """
                select l.parent, \(value) as value, min(ord.position)::smallint as position
                from \(listed) l cross join lateral unnest(string_to_array(l.list, ';')) with ordinality as ord(v, position)\(join)
                group by l.parent, \(value)
                """
            }
            if allNew {
                return ["insert into \(child) (\(parent), \(valueColumn), position) \(desired(from: "(\(listed))")) order by 1, 2"]
            }
            let build = ["create temp table listed on commit drop as \(listed)",
                         "create temp table desired on commit drop as \(desired(from: "listed"))"]
            let cleanUp = ["drop table desired", "drop table listed"]
            return build + [
                """
                with removed as (delete from \(child) c using listed l where c.\(parent) = l.parent
                    and not exists (select 1 from desired d where d.parent = c.\(parent) and d.value = c.\(valueColumn))
                    returning c.\(parent))
                insert into merge_touched select \(parent), false from removed
                """,
                """
                with added as (insert into \(child) (\(parent), \(valueColumn), position)
                    select parent, value, position from desired order by parent, value
                    on conflict (\(parent), \(valueColumn)) do update set position = excluded.position
                    where \(child).position is distinct from excluded.position
                    returning \(parent))
                insert into merge_touched select \(parent), false from added
                """,
            ] + cleanUp
        }
    }

    /// Bumps `updated_at` of rows whose only change was a list; selects how many existing rows changed.
    var finishLists: [String] {
        guard tracksLists else { return [] }
        return [
            """
            update \(spec.table) set updated_at = now() where id in (
                select id from merge_touched group by id having not bool_or(scalar) except select id from merge_fresh)
            """,
            "select count(*) from (select id from merge_touched except select id from merge_fresh) changed",
        ]
    }
}
