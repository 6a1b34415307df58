/// The set-based SQL that moves a kind's staged rows into its table: one UPDATE for changed rows,
/// one INSERT for new ones, and a sync of each list relation. Unchanged rows are not touched, so
/// their `updated_at` stays as it was.
struct MergeSQL {
    let spec: KindSpec
    let blank: ImportOptions.Blank

    private var resolved: String { "(\(spec.resolveSQL)) n" }
    private var keep: Bool { blank == .keep }

    private func newValue(_ column: TargetColumn) -> String {
        if keep { return "coalesce(n.\(column.name), t.\(column.name))" }
        return column.insertDefault.map { "coalesce(n.\(column.name), \($0))" } ?? "n.\(column.name)"
    }

    private func currentList(_ list: ListRelation) -> String {
        guard let referenced = list.referencedTable else {
            return "(select array_agg(c.\(list.valueColumn) order by c.position) from \(list.childTable) c where c.\(list.parentColumn) = t.id)"
        }
        return "(select array_agg(\(list.referencedKey) order by c.position) from \(list.childTable) c join \(referenced) r on r.id = c.\(list.valueColumn) where c.\(list.parentColumn) = t.id)"
    }

    private func listChanged(_ list: ListRelation) -> String {
        keep ? "(n.\(list.column) is not null and n.\(list.column) is distinct from \(currentList(list)))"
            : "(coalesce(n.\(list.column), '{}') is distinct from coalesce(\(currentList(list)), '{}'))"
    }

    /// Updates rows whose values (or lists) differ; selects how many.
    var update: String {
        let columns = spec.targetColumns.filter(\.updatable)
        let assignments = columns.map { "\($0.name) = \(newValue($0))" }.joined(separator: ", ")
        let differs = "row(\(columns.map { "t.\($0.name)" }.joined(separator: ", "))) is distinct from row(\(columns.map(newValue).joined(separator: ", ")))"
        let changed = ([differs] + spec.lists.map(listChanged)).joined(separator: " or ")
        return """
            with changed as (update \(spec.table) t set \(assignments) from \(resolved)
            where \(spec.keyMatch) and (\(changed)) returning 1) select count(*) from changed
            """
    }

    /// Inserts rows whose key is new; selects how many.
    var insert: String {
        let names = spec.keyColumns + spec.targetColumns.map(\.name)
        let values = spec.keyColumns.map { "n.\($0)" }
            + spec.targetColumns.map { column in column.insertDefault.map { "coalesce(n.\(column.name), \($0))" } ?? "n.\(column.name)" }
        return """
            with inserted as (insert into \(spec.table) (\(names.joined(separator: ", ")))
            select \(values.joined(separator: ", ")) from \(resolved)
            where not exists (select 1 from \(spec.table) t where \(spec.keyMatch)) returning 1)
            select count(*) from inserted
            """
    }

    /// Statements that make each list relation's child rows match the staged lists.
    var listSync: [String] {
        spec.lists.flatMap { list -> [String] in
            let value = list.referencedTable == nil ? "ord.v" : "r.id"
            let join = list.referencedTable.map { " join \($0) r on \(list.referencedKey) = ord.v" } ?? ""
            let onlyGiven = keep ? " and n.\(list.column) is not null" : ""
            return [
                """
                create temp table desired on commit drop as
                select t.id as parent, \(value) as value, min(ord.position)::smallint as position
                from \(resolved) join \(spec.table) t on \(spec.keyMatch)
                cross join lateral unnest(n.\(list.column)) with ordinality as ord(v, position)\(join)
                group by t.id, \(value)
                """,
                """
                delete from \(list.childTable) c using \(resolved) join \(spec.table) t on \(spec.keyMatch)
                where c.\(list.parentColumn) = t.id\(onlyGiven)
                and not exists (select 1 from desired d where d.parent = c.\(list.parentColumn) and d.value = c.\(list.valueColumn))
                """,
                """
                insert into \(list.childTable) (\(list.parentColumn), \(list.valueColumn), position)
                select parent, value, position from desired
                on conflict (\(list.parentColumn), \(list.valueColumn)) do update set position = excluded.position
                where \(list.childTable).position is distinct from excluded.position
                """,
                "drop table desired",
            ]
        }
    }
}
