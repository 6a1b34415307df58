import PostgresClient

/// A table whose changes `run_changes` records, as `undo` and `runs show` need it: its primary key
/// and other columns, read from the database's catalog, so nothing here is written per table.
struct LoggedTable {
    let name: String
    let primaryKey: [String]
    /// The columns outside the primary key.
    let otherColumns: [String]

    /// Every table the change-log triggers record, in dependency order (a table only references
    /// earlier ones): each kind's table, then the tables of its lists and the others it owns; then
    /// the people's email aliases, which `people merge` writes.
    static let dependencyOrder: [String] = Kind.allCases.reduce(into: []) { order, kind in
        let spec = KindSpec.of(kind)
        for table in [spec.table] + spec.lists.map({ $0.relation.childTable }) + spec.ownedTables where !order.contains(table) {
            order.append(table)
        }
    } + ["person_aliases"]

    /// Tables no trigger records but whose rows a writer logs itself into `run_images`, after every
    /// logged table: the notifications whose recipient or subject `people merge` moves to the person
    /// kept, so that `undo` gives them back.
    static let loggedByHand = ["notifications"]

    /// Every table `run_changes` may hold rows of: the logged ones in dependency order, then those
    /// logged by hand.
    static let all = dependencyOrder + loggedByHand

    /// The tables named, in the order of `all`.
    static func load(_ names: Set<String>, from connection: PostgresConnection) throws -> [LoggedTable] {
        let tables = all.filter(names.contains)
        var columns: [String: [(name: String, isKey: Bool)]] = [:]
        for row in try connection.query("""
            select c.relname, a.attname, coalesce(a.attnum = any(i.indkey), false)
            from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            left join pg_index i on i.indrelid = c.oid and i.indisprimary
            where c.oid = any(\(tables)::regclass[])
            order by c.relname, a.attnum
            """).rows {
            columns[try row.decode(String.self, 0), default: []].append((try row.decode(String.self, 1), try row.decode(Bool.self, 2)))
        }
        return tables.map { name in
            let all = columns[name, default: []]
            return LoggedTable(name: name, primaryKey: all.filter(\.isKey).map(\.name), otherColumns: all.filter { !$0.isKey }.map(\.name))
        }
    }

    /// The table holding the rows a run inserted into `table`, as they were inserted; `run_changes`
    /// reads them as insert images.
    static func insertedCopy(of table: String) -> String {
        "run_inserted_" + table
    }

    /// The table holding the rows a run updated in `table`, each as it was before and after the
    /// change; `run_changes` reads each pair as images before and after.
    static func updatedCopy(of table: String) -> String {
        "run_updated_" + table
    }

    /// The copies of `table`'s rows the log keeps: as inserted, as updated. The database's
    /// `run_copy_meta_columns(table, copy)` says how many columns of the log's own each starts with.
    static func copies(of table: String) -> [String] {
        [insertedCopy(of: table), updatedCopy(of: table)]
    }

    /// SQL: a row's primary key as jsonb, taken from the image `image` (`{"id": 12}`).
    func key(of image: SQLFragment) -> SQLFragment {
        let pairs = primaryKey.map { column -> SQLFragment in "\(literal: column), \(image)->\(literal: column)" }
        return "jsonb_build_object(\(SQLFragment(joining: pairs, separator: ", ")))"
    }

    /// SQL: the stored row `alias` whose key is `key`'s (`key` a row of this table, e.g. from
    /// `jsonb_populate_record`).
    func matches(_ alias: SQLFragment, _ key: SQLFragment) -> SQLFragment {
        SQLFragment(joining: primaryKey.map { column -> SQLFragment in
            "\(alias).\(identifier: column) = \(key).\(identifier: column)"
        }, separator: " and ")
    }
}
