/// A reference from a column to another kind's natural key (a ministry's campus, a group's
/// leaders), checked against the database (which, inside one load, already holds the kinds loaded
/// before) and, for a scalar reference, resolved to the referenced row's id by a join. A cell may
/// name the row instead of giving its code when the referenced rows have names (`NameMatcher`).
struct Reference: Sendable {
    let table: String
    /// The alias the joins give the referenced table (`c` for campuses ...).
    let alias: String
    /// The referenced key column, compared in lower case when `caseInsensitive` (emails).
    let keyColumn: String
    var caseInsensitive = false
    /// Extra condition on the referenced row over alias `r` (e.g. `r.is_leader`).
    var condition = "true"
    /// What the referenced thing is called in messages ("ministry", "leader").
    let noun: String
    /// The file that defines the referenced rows, for the hint.
    let definedIn: Kind
    /// The referenced rows' name column, when a cell may hold a name (nil: codes or emails only).
    var nameColumn: String?
    /// SQL over the referenced row `r` giving what narrows an ambiguous name: the code that a
    /// column's `nameScope` cell holds (a ministry's campus).
    var scope: String?

    /// The referenced key as SQL over a table alias.
    func key(over alias: String) -> String {
        caseInsensitive ? "lower(\(alias).\(keyColumn))" : "\(alias).\(keyColumn)"
    }

    static let campus = Reference(table: "campuses", alias: "c", keyColumn: "code", noun: "campus", definedIn: .campuses,
                                  nameColumn: "name")
    static let ministry = Reference(table: "ministries", alias: "m", keyColumn: "code", noun: "ministry",
                                    definedIn: .ministries, nameColumn: "name",
                                    scope: "(select x.code from campuses x where x.id = r.campus_id)")
    static let group = Reference(table: "community_groups", alias: "g", keyColumn: "code", noun: "group", definedIn: .groups,
                                 nameColumn: "name")
    static let student = Reference(table: "people", alias: "p", keyColumn: "email", caseInsensitive: true, noun: "student",
                                   definedIn: .students)
    static let leader = Reference(table: "people", alias: "l", keyColumn: "email", caseInsensitive: true,
                                  condition: "r.is_leader", noun: "leader", definedIn: .leaders)
}

/// A list cell stored as child rows in stored order (a group's leaders, a student's ministries,
/// a resource's topics).
struct ListRelation: Sendable {
    let childTable: String
    let parentColumn: String
    /// The child's value column (`person_id`, `ministry_id`, or `topic` for plain values).
    let valueColumn: String
    /// The referenced kind for lists of references; nil for plain values.
    let reference: Reference?

    /// Every parent's list as `a;b` in stored order, one row per parent (`parent`, `list`): joined
    /// once by hash rather than aggregated again for every exported row.
    var exportAggregate: String {
        let value = reference.map { "r.\($0.keyColumn)" } ?? "x.\(valueColumn)"
        let join = reference.map { " join \($0.table) r on r.id = x.\(valueColumn)" } ?? ""
        return """
            select x.\(parentColumn) as parent, string_agg(\(value), ';' order by x.position, \(value)) as list \
            from \(childTable) x\(join) group by x.\(parentColumn)
            """
    }
}

/// A column of the target table that the merge writes: its value for a staged row and its default.
struct TargetColumn: Sendable {
    let name: String
    /// SQL over the staging row `s` (and the reference joins) giving the stored value.
    let resolve: String
    /// SQL default used on insert when the value is NULL (nil: NULL).
    var insertDefault: String?
    /// False for columns only set when a row is inserted (e.g. a membership's source).
    var updatable = true
}

/// A rule about a whole row that only the resolved values can tell, checked in the database.
enum RowRule: Sendable {
    /// The value of `end` must not come before the value of `start` (target column names).
    case endNotBeforeStart(start: String, end: String)
    /// The value of `end` must come after the value of `start` (a term lasts more than a day).
    case endAfterStart(start: String, end: String)
    /// Every period of a `.namedPeriods` column lies between `start` and `end` (a term's breaks).
    case periodsWithin(String, start: String, end: String)
    /// Joins must not fill a group beyond its capacity (current members and earlier rows count).
    case groupCapacity
    /// A new row without a time zone in `column`: with `inheritedThrough` (a list of ministries) it
    /// takes the zone their campuses share; otherwise, or when they do not share one, it gets
    /// `TimeZoneNames.defaultZone`, with a warning.
    case timeZoneDefault(column: String, inheritedThrough: String?)
}

/// Everything the importer and exporter need to know about one kind. Its columns are declared once;
/// the staging table, the resolving SELECT, the merge's target columns and the export query are
/// all derived from them.
struct KindSpec: Sendable {
    let kind: Kind
    let table: String
    let columns: [ColumnSpec]
    /// Target columns set from no CSV column (a leader's `is_leader`, a membership's `source`).
    var derived: [TargetColumn] = []
    /// Hand-written joins of the resolving SELECT beyond the references' own (over stage `s`).
    var resolveJoins = ""
    /// Which rows of `table` (alias `t`) are this kind, for export (people are leaders or students).
    var exportFilter = "true"
    var rules: [RowRule] = []
    /// The key column named in duplicate messages (default: the first key column).
    var messageKey: String?

    /// The column that names a row in messages.
    var messageColumn: ColumnSpec { columns.first { $0.name == messageKey } ?? keys[0] }

    static func of(_ kind: Kind) -> KindSpec { KindCatalog.spec(kind) }

    var requiredColumns: [ColumnSpec] { columns.filter(\.required) }
    var keys: [ColumnSpec] { columns.filter(\.isKey) }

    /// The target key columns.
    var keyColumns: [String] { keys.compactMap(\.target?.name) }

    /// How a target row `t` matches a resolved row `n` (emails without regard to case).
    var keyMatch: String {
        keys.compactMap { column in
            column.target.map { target in
                column.reference == nil && column.type == .email
                    ? "lower(t.\(target.name)) = n.\(target.name)" : "t.\(target.name) = n.\(target.name)"
            }
        }.joined(separator: " and ")
    }

    /// The key's display form for duplicate messages, as SQL over the staging row `s`.
    var stagedKey: String { keys.map(\.stagedName).joined(separator: " || ', ' || ") }

    /// Every column that references another kind, scalar or list.
    var references: [(column: ColumnSpec, reference: Reference)] {
        columns.compactMap { column in (column.reference ?? column.list?.reference).map { (column, $0) } }
    }

    /// The scalar references, each resolved to an id by a join.
    private var joinedReferences: [(column: ColumnSpec, reference: Reference)] {
        columns.compactMap { column in column.reference.map { (column, $0) } }
    }

    var lists: [(column: ColumnSpec, relation: ListRelation)] {
        columns.compactMap { column in column.list.map { (column, $0) } }
    }

    /// The merge's non-key target columns, in declaration order, then the derived ones.
    var targetColumns: [TargetColumn] {
        columns.filter { !$0.isKey }.compactMap(\.target) + derived
    }

    /// SELECT over the staging table giving `line`, the key columns, the target columns and the raw
    /// list cells (named by their CSV column).
    var resolveSQL: String {
        let values = ["s.line"] + keys.compactMap { $0.target.map { "\($0.resolve) as \($0.name)" } }
            + targetColumns.map { "\($0.resolve) as \($0.name)" } + lists.map { $0.column.stagedName + " as \($0.column.name)" }
        let joins = joinedReferences.map { column, reference in
            "left join \(reference.table) \(reference.alias) on \(reference.key(over: reference.alias)) = \(column.stagedName)"
        } + (resolveJoins.isEmpty ? [] : [resolveJoins])
        return "select \(values.joined(separator: ", ")) from stage s \(joins.joined(separator: " "))"
    }

    /// A query whose rows are exactly the CSV `import` reads (header = canonical column names).
    var exportSQL: String {
        // Each list column is read from its aggregate, joined as list0, list1 ...
        let listAliases = Dictionary(uniqueKeysWithValues: lists.enumerated().map { ($1.column.name, "list\($0)") })
        let values = columns.map { column in
            "\(listAliases[column.name].map { "\($0).list" } ?? column.exportExpression) as \"\(column.name)\""
        }
        let joins = joinedReferences.map { column, reference in
            "\(column.required ? "join" : "left join") \(reference.table) \(reference.alias) on \(reference.alias).id = t.\(column.target?.name ?? "")"
        } + zip(lists, lists.indices).map { list, index in
            "left join (\(list.relation.exportAggregate)) list\(index) on list\(index).parent = t.id"
        }
        let order = keys.map(\.exportExpression)
        return "select \(values.joined(separator: ", ")) from \(table) t \(joins.joined(separator: " ")) where \(exportFilter) order by \(order.joined(separator: ", "))"
    }
}
