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

    private var resolved: SQLFragment { "(\(spec.resolveSQL)) n" }
    private var keep: Bool { blank == .keep }
    private var tracksLists: Bool { !spec.lists.isEmpty }

    /// The value an update gives `column`. A blank cell keeps the stored value (`--blank keep`),
    /// except in the column holding a retired row's state, which a listed row resets to its default.
    private func newValue(_ column: TargetColumn) -> SQLFragment {
        let new: SQLFragment = "n.\(identifier: column.name)"
        if keep {
            let stored: SQLFragment = "t.\(identifier: column.name)"
            guard let retirement = spec.retirement, retirement.stateColumn == column.name else {
                return "coalesce(\(new), \(stored))"
            }
            let reset = column.insertDefault ?? "null"
            return "coalesce(\(new), case when \(retirement.isRetired(over: "t")) then \(reset) else \(stored) end)"
        }
        return column.insertDefault.map { "coalesce(\(new), \($0))" } ?? new
    }

    /// Temp tables for the bookkeeping (kinds with lists only).
    var setup: [PostgresQuery] {
        tracksLists ? ["create unlogged table merge_touched (id bigint not null, scalar boolean not null)",
                       "create unlogged table merge_fresh (id bigint not null)"] : []
    }

    /// Drops `match`'s table and `setup`'s.
    var teardown: [PostgresQuery] {
        ["drop table merge_matched"] + (tracksLists ? ["drop table merge_touched", "drop table merge_fresh"] : [])
    }

    /// Whether a stored row `t` differs from its new `values` in `columns`, or comes back from being
    /// retired.
    private func differs(_ columns: [String], from values: [SQLFragment]) -> SQLFragment {
        let stored = SQLFragment(joining: columns.map { "t.\(identifier: $0)" }, separator: ", ")
        let changes: SQLFragment = "row(\(stored)) is distinct from row(\(SQLFragment(joining: values, separator: ", ")))"
        return spec.retirement?.comesBack(over: "t").map { "(\(changes) or \($0))" } ?? changes
    }

    /// `column = value, ...` for the given columns, then the assignments that restore a retired row.
    private func assignments(_ columns: [String], _ value: (String) -> SQLFragment) -> SQLFragment {
        SQLFragment(joining: columns.map { "\(identifier: $0) = \(value($0))" } + (spec.retirement?.restore ?? []),
                    separator: ", ")
    }

    /// Joins each staged row to the stored row its key names, once, into `merge_matched`: its line,
    /// the stored row's id, and whether the row differs or comes back from being retired
    /// (`merge_changed`). The rows it holds are the staged rows that name a stored row: when that is
    /// every staged row, nothing is new and `insert` need not run; when none differs, `update`
    /// need not run. The row's list cells come along, under their columns' names, for `listSync`.
    var match: PostgresQuery {
        let columns = spec.targetColumns.filter(\.updatable)
        let lists = SQLFragment(joining: spec.lists.map { ", n.\(identifier: $0.column.name)" }, separator: "")
        return """
            create unlogged table merge_matched as
            select n.line, t.id as merge_id, \(unescaped: differs(columns.map(\.name), from: columns.map(newValue))) as merge_changed\
            \(unescaped: lists)
            from \(unescaped: resolved) join \(identifier: spec.table) t on \(unescaped: spec.keyMatch)
            """
    }

    /// How the planner runs `match`: with the stage in the run's `WorkSchema`, its join may take the
    /// server's other cores, but by default the planner prices handing each of a million joined
    /// rows back to the leader above the work the helpers save (2.0 s alone, 1.1-1.3 s shared, for
    /// a million students).
    static let matchPlanner = PlannerSettings([("parallel_tuple_cost", "0.01")])

    /// How the planner runs `listSync` after a match: every join there is an equality a hash
    /// serves, where a merge join first sorted the million listed rows by their list's text (the
    /// diff of a million students' lists 2.5 s with it, 1.8 s with hashes).
    static let listSyncPlanner = PlannerSettings([("enable_mergejoin", "off")])

    /// Selects how many matched rows differ.
    var changedCount: PostgresQuery { "select count(*) from merge_matched where merge_changed" }

    /// Updates the matched rows that differ and restores retired rows the file lists; selects how
    /// many were updated and how many restored. The stored row's old state comes from a second
    /// reference to the table (`o`), since RETURNING sees the new one.
    var update: PostgresQuery {
        let columns = spec.targetColumns.filter(\.updatable)
        let values = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, newValue($0)) })
        var from: SQLFragment = "\(resolved) join merge_matched m on m.line = n.line and m.merge_changed"
        var match: SQLFragment = "t.id = m.merge_id", restored: SQLFragment = "false"
        if let retirement = spec.retirement {
            from = "\(from), \(identifier: spec.table) o"
            match = "\(match) and o.id = t.id"
            restored = "\(retirement.isRetired(over: "o")) and \(retirement.isCurrent(over: "t"))"
        }
        let record: SQLFragment = tracksLists
            ? ", recorded as (insert into merge_touched select id, true from changed), restored as (insert into merge_fresh select id from changed where restored)"
            : ""
        return """
            with changed as (update \(identifier: spec.table) t set \(unescaped: assignments(columns.map(\.name)) { values[$0]! }) \
            from \(unescaped: from)
            where \(unescaped: match) returning t.id, \(unescaped: restored) as restored)\(unescaped: record)
            select count(*) filter (where not restored), count(*) filter (where restored) from changed
            """
    }

    /// The resolved key columns, in the order of the kind's unique index on them.
    private var keyOrder: SQLFragment { SQLFragment(joining: spec.keyColumns.map { "n.\(identifier: $0)" }, separator: ", ") }

    /// Selects whether the table holds any staged key already. When it holds none (a first load), the
    /// merge is `insert(recording: false)` and `listSync(.firstLoad)`: nothing to update, compare or record.
    var anyStored: PostgresQuery {
        "select exists (select 1 from \(unescaped: resolved) join \(identifier: spec.table) t on \(unescaped: spec.keyMatch))"
    }

    /// Inserts rows whose key is new, in key order unless `inKeyOrder` is false (no index of the key
    /// to grow at its right edge: a big first load dropped it, and sorting a million rows by it
    /// took 2.1 s); selects how many. `recording`: the new rows go in `merge_fresh` too (after
    /// `setup`, for `finishLists`).
    /// `ids`: each row gets the id its staged line was given (a first load), not the identity's next.
    func insert(recording: Bool, inKeyOrder: Bool = true, ids: LineIDs? = nil) -> PostgresQuery {
        let record: SQLFragment = tracksLists && recording
            ? ", recorded as (insert into merge_fresh select id from inserted)" : ""
        let order: SQLFragment = inKeyOrder ? " order by \(keyOrder)" : ""
        let (id, overriding, idValue): (SQLFragment, SQLFragment, SQLFragment) = ids.map {
            ("id, ", " overriding system value", "\($0.idOfStagedRow), ")
        } ?? ("", "", "")
        return """
            with inserted as (insert into \(identifier: spec.table) (\(unescaped: id)\(unescaped: insertedColumns))\(unescaped: overriding)
            select \(unescaped: idValue)\(unescaped: insertedValues) from \(unescaped: resolved)
            where not exists (select 1 from \(identifier: spec.table) t where \(unescaped: spec.keyMatch))\
            \(unescaped: order) returning id)\(unescaped: record)
            select count(*) from inserted
            """
    }

    /// The columns an insert sets: the key, then the target columns.
    private var insertedColumns: SQLFragment {
        SQLFragment(joining: (spec.keyColumns + spec.targetColumns.map(\.name)).map(SQLFragment.init(identifier:)),
                    separator: ", ")
    }

    /// A new row's values over the resolved row `n`, in the order of `insertedColumns`.
    private var insertedValues: SQLFragment {
        let keys = spec.keyColumns.map { name -> SQLFragment in "n.\(identifier: name)" }
        let values = spec.targetColumns.map { column -> SQLFragment in
            let new: SQLFragment = "n.\(identifier: column.name)"
            return column.insertDefault.map { "coalesce(\(new), \($0))" } ?? new
        }
        return SQLFragment(joining: keys + values, separator: ", ")
    }

    /// One statement that inserts the staged rows whose key is new and updates the stored rows whose
    /// values differ, in the order of the staged lines, writing every staged value (as `--blank
    /// clear`); returns the id of each row it inserted or changed. Every stored row it lists is locked
    /// until the transaction ends, an unchanged one too. For a writer that decides its few rows in
    /// memory (`place`), not for a file: it neither counts restored rows nor syncs lists, and a
    /// conflict on the key is found row by row. A stored row is updated only where `condition` (over
    /// `t`) holds too, when one is given.
    func upsert(updatingOnlyWhere condition: SQLFragment? = nil) -> PostgresQuery {
        precondition(!keep && !tracksLists, "an upsert writes every staged value and no list")
        // An expression in the index (`lower(email)`) is named in parentheses.
        let conflict = SQLFragment(
            joining: spec.comparedKeys().map { $0.lowered ? "(\($0.expression))" : $0.expression }, separator: ", ")
        let columns = spec.targetColumns.filter(\.updatable).map(\.name)
        var changes = differs(columns, from: columns.map { "excluded.\(identifier: $0)" })
        if let condition { changes = "\(changes) and (\(condition))" }
        return """
            insert into \(identifier: spec.table) as t (\(unescaped: insertedColumns))
            select \(unescaped: insertedValues) from \(unescaped: resolved) order by n.line
            on conflict (\(unescaped: conflict)) do update set \(unescaped: assignments(columns) { "excluded.\(identifier: $0)" })
            where \(unescaped: changes)
            returning t.id
            """
    }

    /// Where `listSync` finds the row each staged list belongs to.
    enum ListParents {
        /// Every staged row was just inserted (a first load): there are no old children to remove
        /// and nothing to record, so the children are inserted by one statement, without `setup`'s
        /// tables. Each row is found by its key, or, when `ids` gave the rows their ids, by its line.
        case firstLoad(ids: LineIDs?)
        /// By the staged row's key.
        case byKey
        /// Every staged row named a stored one: its `merge_matched` id and list cells (after `match`).
        case matched
    }

    /// Statements that make each list relation's child rows match the staged lists, their parents
    /// found as `parents` says.
    func listSync(_ parents: ListParents) -> [PostgresQuery] {
        spec.lists.flatMap { column, list -> [PostgresQuery] in
            let value: SQLFragment = list.reference == nil ? "ord.v" : "r.id"
            let join: SQLFragment = list.reference.map {
                " join \(identifier: $0.table) r on \($0.key(over: "r")) = ord.v"
            } ?? ""
            let child = SQLFragment(identifier: list.childTable), parent = SQLFragment(identifier: list.parentColumn)
            let valueColumn = SQLFragment(identifier: list.valueColumn)
            // Each list's parent, and where its cell is read (`source`, its row named `row`). The
            // matched rows' cells came along in `merge_matched`: no second join with the stage.
            let (owner, source, row): (SQLFragment, SQLFragment, SQLFragment) = switch parents {
            case .matched: ("m.merge_id", "merge_matched m", "m")
            case .firstLoad(let ids?): (ids.idOfStagedRow, resolved, "n")
            case .firstLoad(nil), .byKey: ("t.id", "\(resolved) join \(identifier: spec.table) t on \(spec.keyMatch)", "n")
            }
            let cell: SQLFragment = "\(row).\(identifier: column.name)"
            let onlyGiven: SQLFragment = keep ? " where \(cell) is not null" : ""
            let listed: SQLFragment = "select \(owner) as parent, \(cell) as list from \(source)\(onlyGiven)"
            // The items of the lists of `rows` (as `l`, with a `list` column), grouped by `key`: each
            // one's value (the referenced row's id) and its first position in its list.
            func items(of rows: SQLFragment, by key: SQLFragment) -> SQLFragment {
                """
                select \(key), \(value) as value, min(ord.position)::smallint as position from \(rows) l
                cross join lateral unnest(string_to_array(l.list, ';')) with ordinality as ord(v, position)\(join)
                group by \(key), \(value)
                """
            }
            if case .firstLoad = parents {
                // Every row's list: the planner memoizes each list's split here, and sorts for the
                // grouping the order the insert wants.
                return ["""
                    insert into \(unescaped: child) (\(unescaped: parent), \(unescaped: valueColumn), position)
                    \(unescaped: items(of: "(\(listed))", by: "l.parent")) order by 1, 2
                    """]
            }
            // One full join of the wanted children with the stored children of the listed rows finds
            // every difference; the writes then touch only those. (Three joins, one per write, and an
            // upsert that looked up and locked every listed child, were most of a re-import's time.)
            let build: [PostgresQuery] = [
                "create unlogged table listed as \(unescaped: listed)",
                // The wanted children (d): each distinct list is split and looked up once (a million
                // rows hold a few thousand lists), and its items joined to the rows that hold it: no
                // grouping of every child.
                """
                create unlogged table list_diff as
                select coalesce(d.parent, c.parent) as parent, coalesce(d.value, c.value) as value, d.position,
                       d.parent is null as gone, c.parent is null as new
                from (select l.parent, i.value, i.position
                      from listed l join (\(unescaped: items(of: "(select distinct list from listed)", by: "l.list"))) i on i.list = l.list) d
                full join (
                    select c.\(unescaped: parent) as parent, c.\(unescaped: valueColumn) as value, c.position
                    from \(unescaped: child) c join listed l on l.parent = c.\(unescaped: parent)) c
                on c.parent = d.parent and c.value = d.value
                where d.parent is null or c.parent is null or c.position is distinct from d.position
                """,
                "analyze list_diff",
            ]
            let cleanUp: [PostgresQuery] = ["drop table list_diff", "drop table listed"]
            // Each write (its child row named c) records the parents whose lists it changed.
            func touching(_ write: SQLFragment) -> PostgresQuery {
                """
                with written as (\(unescaped: write) returning c.\(unescaped: parent))
                insert into merge_touched select \(unescaped: parent), false from written
                """
            }
            let matched: SQLFragment = "c.\(parent) = x.parent and c.\(valueColumn) = x.value"
            return build + [
                touching("delete from \(child) c using list_diff x where x.gone and \(matched)"),
                touching("update \(child) c set position = x.position from list_diff x where not x.gone and not x.new and \(matched)"),
                touching("""
                    insert into \(child) as c (\(parent), \(valueColumn), position)
                    select x.parent, x.value, x.position from list_diff x where x.new order by x.parent, x.value
                    on conflict (\(parent), \(valueColumn)) do update set position = excluded.position
                    where c.position is distinct from excluded.position
                    """),
            ] + cleanUp
        }
    }

    /// Bumps `updated_at` of rows whose only change was a list; selects how many existing rows changed.
    var finishLists: [PostgresQuery] {
        guard tracksLists else { return [] }
        return [
            """
            update \(identifier: spec.table) set updated_at = now() where id in (
                select id from merge_touched group by id having not bool_or(scalar) except select id from merge_fresh)
            """,
            "select count(*) from (select id from merge_touched except select id from merge_fresh) changed",
        ]
    }
}
