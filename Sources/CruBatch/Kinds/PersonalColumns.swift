import PostgresClient

/// What a column tells of a person, declared on each `ColumnSpec` of a table that holds people's
/// data (`ColumnSpec.personal`): whether `forget` erases it, and with what.
enum Personal: Sendable, Hashable {
    /// Nothing once the person's personal columns are erased (a campus, a role, a ride's event).
    case no
    /// A person's data that may be empty: `forget` clears it.
    case cleared
    /// A person's data the schema requires: `forget` writes this placeholder, SQL over the row `t`.
    case replaced(by: SQLFragment)

    /// What `forget` writes instead of the value, SQL over the row `t`; nil when it keeps the value.
    var placeholder: SQLFragment? {
        switch self {
        case .no: nil
        case .cleared: "null"
        case .replaced(let placeholder): placeholder
        }
    }
}

/// The columns of the kinds' tables that hold a person's data, as the kinds declare them: what
/// `forget` erases, and how every stored column of a table is classified.
struct PersonalColumns: Sendable {
    /// The people table: its rows are the persons themselves.
    static let people = "people"

    /// Columns a table may have that no file sets and that say nothing of a person: its id, its
    /// timestamps and its lifecycle stamps.
    static let bookkeeping: Set<String> = ["id", "created_at", "updated_at", "archived_at", "ended_at"]

    /// The catalog's kinds.
    static let catalog = PersonalColumns(kinds: Kind.allCases.map(KindSpec.of))

    let kinds: [KindSpec]

    /// One table's share of a person's erasure.
    struct Erasure: Sendable {
        let table: String
        /// The column holding the person's id (`id` in people, a ride request's `passenger_id`).
        let personColumn: String
        /// The table's natural key, which also finds the person's rows in change images of rows
        /// since deleted.
        let keyColumns: [String]
        /// The personal columns and what `forget` writes in each (SQL over the row `t`), in
        /// declaration order.
        let placeholders: [(column: String, placeholder: SQLFragment)]

        /// The same erasure of only the personal columns in `columns` (those a table's copy has).
        func limited(to columns: Set<String>) -> Erasure {
            Erasure(table: table, personColumn: personColumn, keyColumns: keyColumns,
                    placeholders: placeholders.filter { columns.contains($0.column) })
        }

        /// SQL: `SET` assignments giving the personal columns of the row `t` their placeholders.
        var assignments: SQLFragment {
            SQLFragment(joining: placeholders.map { "\(identifier: $0.column) = \($0.placeholder)" }, separator: ", ")
        }

        /// SQL: the placeholders of the row `t` as a jsonb object, to merge into its images.
        var image: SQLFragment {
            let pairs = placeholders.map { column, placeholder -> SQLFragment in "\(literal: column), \(placeholder)" }
            return "jsonb_build_object(\(SQLFragment(joining: pairs, separator: ", ")))"
        }
    }

    /// What `forget` erases: each table with a personal column, in catalog order.
    var erasures: [Erasure] {
        tables.compactMap { table in
            let placeholders = erased(in: table)
            guard !placeholders.isEmpty, let person = personColumn(of: table) else { return nil }
            let keys = kinds.first { $0.table == table }?.keyColumns ?? []
            return Erasure(table: table, personColumn: person, keyColumns: keys, placeholders: placeholders)
        }
    }

    /// The columns among `columns` (every stored column of `table`) not classified: neither declared
    /// by a kind's column nor set by no file, declared differently by two kinds that share the table,
    /// or personal in a table where `forget` cannot tell whose a row is.
    func unclassified(_ columns: [String], in table: String) -> [String] {
        let declared = Dictionary(grouping: declarations(in: table), by: \.column).mapValues { Set($0.map(\.personal)) }
        let unset = unset(in: table)
        let reachable = personColumn(of: table) != nil
        return columns.filter { column in
            guard let classes = declared[column] else { return !unset.contains(column) }
            guard classes.count == 1, let personal = classes.first ?? nil else { return true }
            return personal.placeholder != nil && !reachable
        }
    }

    /// Every kind's table, in catalog order.
    private var tables: [String] {
        kinds.map(\.table).reduce(into: []) { tables, table in if !tables.contains(table) { tables.append(table) } }
    }

    /// What the kinds on `table` declare of each column they store there, in catalog order. A column
    /// describing the row another column references (a passenger's name) is declared by the kind
    /// that defines that row.
    private func declarations(in table: String) -> [(column: String, personal: Personal?)] {
        kinds.filter { $0.table == table }.flatMap { spec in
            spec.columns.compactMap { column in column.target.map { ($0.name, column.personal) } }
        }
    }

    /// The personal columns of `table` with their placeholders, each once.
    private func erased(in table: String) -> [(column: String, placeholder: SQLFragment)] {
        var seen = Set<String>()
        return declarations(in: table).compactMap { column, personal in
            guard let placeholder = personal?.placeholder, seen.insert(column).inserted else { return nil }
            return (column, placeholder)
        }
    }

    /// The column of `table` that holds the person's id: `id` in people, elsewhere a key column that
    /// names a person (a ride offer's driver); nil when the table's rows are no one's.
    private func personColumn(of table: String) -> String? {
        if table == Self.people { return "id" }
        return kinds.lazy.filter { $0.table == table }.compactMap(\.personKey).first
    }

    /// Columns of `table` that no file sets and that hold nothing personal: bookkeeping, the flags
    /// the merge derives, the links and positions of list tables, and the state the kinds name.
    private func unset(in table: String) -> Set<String> {
        kinds.reduce(into: Self.bookkeeping) { columns, spec in
            if spec.table == table { columns.formUnion(spec.derived.map(\.name) + spec.stateColumns) }
            for (_, relation) in spec.lists where relation.childTable == table {
                columns.formUnion([relation.parentColumn, relation.valueColumn, "position"])
            }
        }
    }
}

extension KindSpec {
    /// The key column that names a person (a ride offer's driver); nil when the kind's rows are no one's.
    var personKey: String? { keys.first { $0.reference?.table == PersonalColumns.people }?.target?.name }
}
