import CSVStream
import PostgresClient

/// A reference from a column to another kind's natural key (a ministry's campus, a group's
/// leaders), checked against the database (which, inside one load, already holds the kinds loaded
/// before) and, for a scalar reference, resolved to the referenced row's id by a join. A cell may
/// name the row instead of giving its code when the referenced rows have names (`NameMatcher`).
struct Reference: Sendable {
    let table: String
    /// The alias the joins give the referenced table (`c` for campuses ...).
    let alias: SQLFragment
    /// The referenced key column, compared in lower case when `caseInsensitive` (emails).
    let keyColumn: String
    var caseInsensitive = false
    /// Extra condition on the referenced row over alias `r` (e.g. `r.is_leader`); nil: any row.
    var condition: SQLFragment?

    /// `and CONDITION`, to follow a match of the key; empty when there is no condition.
    var andCondition: SQLFragment { condition.map { "and \($0)" } ?? "" }

    /// `where CONDITION` over `r`; empty when there is no condition.
    var whereCondition: SQLFragment { condition.map { "where \($0)" } ?? "" }
    /// What the referenced thing is called in messages ("ministry", "leader").
    let noun: String
    /// The file that defines the referenced rows, for the hint.
    let definedIn: Kind
    /// The referenced rows' name column, when a cell may hold a name (nil: codes or emails only).
    var nameColumn: String?
    /// SQL over the referenced row `r` giving what narrows an ambiguous name: the code that a
    /// column's `nameScope` cell holds (a ministry's campus).
    var scope: SQLFragment?
    /// The columns that name a referenced row where its key is personal data (a student by name, not
    /// by email); nil: its key names it. Rows with personal keys are never offered as "did you mean".
    var labelColumns: [String]?
    /// How a cell naming no row is reported when `unknown-reference` does not say it (a driver who is
    /// not a member).
    var absence: Absence?
    /// A person crubatch does not know yet is added, as a non-member, instead of being reported (a
    /// passenger), with the details the row's `ReferencedDetail` columns give.
    var addsPeople = false

    /// The diagnostic for a cell that names no row the reference accepts.
    struct Absence: Sendable {
        let code: DiagnosticCode
        /// What is wrong, after the noun and the cell (`driver with this email ...`).
        let message: String
        let hint: String
    }

    /// The referenced key as SQL over a table alias.
    func key(over alias: SQLFragment) -> SQLFragment {
        caseInsensitive ? "lower(\(alias).\(identifier: keyColumn))" : "\(alias).\(identifier: keyColumn)"
    }

    /// The referenced row as people read it, SQL over a table alias.
    func label(over alias: SQLFragment) -> SQLFragment {
        labelColumns.map { SQLFragment(joining: $0.map { "\(alias).\(identifier: $0)" }, separator: " || ' ' || ") }
            ?? "\(alias).\(identifier: keyColumn)"
    }

    static let campus = Reference(table: "campuses", alias: "c", keyColumn: "code", noun: "campus", definedIn: .campuses,
                                  nameColumn: "name")
    static let ministry = Reference(table: "ministries", alias: "m", keyColumn: "code", noun: "ministry",
                                    definedIn: .ministries, nameColumn: "name",
                                    scope: "(select x.code from campuses x where x.id = r.campus_id)")
    static let group = Reference(table: "community_groups", alias: "g", keyColumn: "code", noun: "group", definedIn: .groups,
                                 nameColumn: "name")
    static let student = Reference(table: "people", alias: "p", keyColumn: "email", caseInsensitive: true, noun: "student",
                                   definedIn: .students, labelColumns: ["first_name", "last_name"])
    static let leader = Reference(table: "people", alias: "l", keyColumn: "email", caseInsensitive: true,
                                  condition: "r.is_leader", noun: "leader", definedIn: .leaders)
    static let event = Reference(table: "events", alias: "ev", keyColumn: "code", noun: "event", definedIn: .events,
                                 nameColumn: "name")
    /// Only registered members drive: people of students.csv or leaders.csv, not those who only asked for a ride.
    static let driver = Reference(
        table: "people", alias: "dr", keyColumn: "email", caseInsensitive: true, condition: "r.is_member", noun: "driver",
        definedIn: .students, labelColumns: ["first_name", "last_name"],
        absence: Absence(code: .notAMember, message: "is not a registered Cru member: only members offer rides",
                         hint: "a member is in students.csv or leaders.csv; anyone may ask for a ride in ride-requests.csv"))
    static let passenger = Reference(table: "people", alias: "pa", keyColumn: "email", caseInsensitive: true, noun: "passenger",
                                     definedIn: .students, labelColumns: ["first_name", "last_name"], addsPeople: true)
    /// Someone who came to an event: a person crubatch knows, or a walk-in it adds (`WalkIns`).
    static let attendee = Reference(table: "people", alias: "at", keyColumn: "email", caseInsensitive: true, noun: "person",
                                    definedIn: .students, labelColumns: ["first_name", "last_name"])
}

/// A column of the row another column references rather than of the kind's own table (a passenger's
/// name in a ride request): read to add that row when it is new (`Reference.addsPeople`), and
/// written back from it on export.
struct ReferencedDetail: Sendable {
    let reference: Reference
    /// The row cannot be added without it (a person's first and last name).
    let requiredWhenNew: Bool
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
    var exportAggregate: SQLFragment {
        let value: SQLFragment = reference.map { "r.\(identifier: $0.keyColumn)" } ?? "x.\(identifier: valueColumn)"
        let join: SQLFragment = reference.map { " join \(identifier: $0.table) r on r.id = x.\(identifier: valueColumn)" } ?? ""
        return """
            select x.\(identifier: parentColumn) as parent, string_agg(\(value), ';' order by x.position, \(value)) as list \
            from \(identifier: childTable) x\(join) group by x.\(identifier: parentColumn)
            """
    }
}

/// People a kind's rows may name by their details instead of their key: a walk-in on a paper
/// check-in sheet, typed up later, gives a first and last name, a phone and maybe a school year, but no
/// email. The `ReferencedDetail` columns that are `requiredWhenNew` are then required. A walk-in is
/// the person with that phone and name when there is one; otherwise a student of the row's `campus`,
/// marked as coming from a check-in,
/// whose key is made from those details (`key(over:)`), so reading the sheet again finds them.
struct WalkIns: Sendable {
    /// The key column a walk-in leaves blank (`email`).
    let key: String
    /// SQL over the staged row `s`, its references given as codes: the code of the campus a new walk-in
    /// belongs to, or null.
    let campus: SQLFragment

    /// The domain of walk-ins' keys: `.invalid` is reserved (RFC 2606), so no mail reaches it and
    /// no real address has it.
    static let domain = "check-in.invalid"

    /// SQL over the staged row `alias`: the key a new walk-in gets, from its phone's digits and its name.
    static func key(over alias: SQLFragment) -> SQLFragment {
        """
        'walk-in-' || regexp_replace(\(alias).phone, '[^0-9]', '', 'g') || '-' \
        || left(md5(lower(\(alias).first_name || ' ' || \(alias).last_name)), 8) || \(literal: "@" + domain)
        """
    }
}

/// A column of the target table that the merge writes: its value for a staged row and its default.
struct TargetColumn: Sendable {
    let name: String
    /// SQL over the staging row `s` (and the reference joins) giving the stored value.
    let resolve: SQLFragment
    /// SQL default used on insert when the value is NULL (nil: NULL).
    var insertDefault: SQLFragment?
    /// False for columns only set when a row is inserted (e.g. a membership's source).
    var updatable = true
}

/// A rule about a whole row that only the resolved values can tell, checked in the database.
enum RowRule: Sendable {
    /// The value of `end` must not come before the value of `start` (target column names).
    case endNotBeforeStart(start: String, end: String)
    /// The value of `end` must come after the value of `start` (a term lasts more than a day).
    case endAfterStart(start: String, end: String)
    /// An event ends after it starts (`starts_at`, `ends_at`); an all-day one may end on its first day.
    /// A calendar cannot hold an event that ends when it starts. A start in the hour the clocks skip in
    /// spring, which is read an hour later, is named as the cause.
    case eventEndsAfterStart
    /// Every period of a `.namedPeriods` column lies between `start` and `end` (a term's breaks).
    case periodsWithin(String, start: String, end: String)
    /// Joins must not fill a group beyond its capacity (current members and earlier rows count).
    case groupCapacity
    /// The columns are given together or not at all (a latitude and its longitude).
    case together([String])
    /// The row's event (column `event`) shares rides, the ways its `direction` goes among them.
    case rideshareCovers(event: String, direction: String)
    /// A ride gives its departure for each way its `direction` goes: `to` the event, `from` it.
    case departureEachWay(direction: String, to: String, from: String)
    /// A new row without a time zone in `column`: with `inheritedThrough` (a list of ministries) it
    /// takes the zone their campuses share; otherwise, or when they do not share one, it gets
    /// `TimeZoneNames.defaultZone`, with a warning.
    case timeZoneDefault(column: String, inheritedThrough: String?)
}

/// How a kind's rows leave the list and come back: what `import --sync` does to a row missing from
/// the file, and what a later file that lists the row again undoes.
enum Retirement: Sendable {
    /// The row is archived: `archived_at` is set, and cleared when a file lists the row again.
    case archive
    /// The row ends: target column `column` becomes `value` (a membership's status becomes `left`,
    /// and the database stamps `ended_at`). A row listed again takes the file's value, or the
    /// column's insert default when the cell is blank.
    case end(column: String, value: String)

    /// SQL over a row alias: true when the row is archived or ended.
    func isRetired(over alias: SQLFragment) -> SQLFragment {
        switch self {
        case .archive: "\(alias).archived_at is not null"
        case .end(let column, let value): "\(alias).\(identifier: column) = \(literal: value)"
        }
    }

    /// SQL over a row alias: true when the row is neither archived nor ended (a staged row with a blank
    /// state is current).
    func isCurrent(over alias: SQLFragment) -> SQLFragment { "(\(isRetired(over: alias))) is not true" }

    /// The assignments that archive or end a row.
    var retire: SQLFragment {
        switch self {
        case .archive: "archived_at = now()"
        case .end(let column, let value): "\(identifier: column) = \(literal: value)"
        }
    }

    /// Assignments that bring back a row a file lists again, beyond the file's own values.
    var restore: [SQLFragment] {
        switch self {
        case .archive: ["archived_at = null"]
        case .end: []
        }
    }

    /// SQL over a stored row `alias` that a file lists: true when listing it brings it back whatever
    /// its values (an archived row). Nil when its values alone decide (an ended membership comes back
    /// through its status).
    func comesBack(over alias: SQLFragment) -> SQLFragment? {
        switch self {
        case .archive: isRetired(over: alias)
        case .end: nil
        }
    }

    /// The target column that holds the retired state (a membership's status), if a target column does.
    var stateColumn: String? {
        switch self {
        case .archive: nil
        case .end(let column, _): column
        }
    }
}

/// Everything the importer and exporter need to know about one kind. Its columns are declared once;
/// the staging table, the resolving SELECT, the merge's target columns and the export query are
/// all derived from them.
struct KindSpec: Sendable {
    let kind: Kind
    let table: String
    private(set) var columns: [ColumnSpec]
    /// Target columns set from no CSV column (a leader's `is_leader`, a membership's `source`).
    var derived: [TargetColumn] = []
    /// Hand-written joins of the resolving SELECT beyond the references' own (over stage `s`).
    var resolveJoins: SQLFragment = ""
    /// Which rows of `table` (alias `t`) are this kind, for export (people are leaders or students).
    var exportFilter: SQLFragment = "true"
    var rules: [RowRule] = []
    /// The key column named in duplicate messages (default: the first key column).
    var messageKey: String?
    /// What `import --sync` does to rows missing from a file; nil for kinds that are never archived (people).
    var retirement: Retirement? = .archive
    /// The column naming what a row belongs to (a ministry's campus, a group's ministry, an event's
    /// ministries, a membership's group): how `import --sync --scope` reaches a campus or ministry.
    var belongsTo: String?
    /// True when a sync covers exactly what the file's rows belong to (a memberships file is the
    /// complete membership of each group it names), so `--scope` does not apply.
    var syncScopedByFile = false
    /// Tables beyond its own and its lists' whose rows hang on the kind's rows (a ride request's
    /// pairings): logged and undone with them.
    var ownedTables: [String] = []
    /// Columns of `table` that no file sets and that hold nothing personal (an opt-out the app sets).
    var stateColumns: [String] = []
    /// How rows name people without their key (walk-ins on a check-in sheet); nil: every row gives the key.
    var walkIns: WalkIns?

    /// The column that names a row in messages.
    var messageColumn: ColumnSpec { columns.first { $0.name == messageKey } ?? keys[0] }

    static func of(_ kind: Kind) -> KindSpec { KindCatalog.spec(kind) }

    /// The kind with only the named columns, in that order: what a writer that sets no other column
    /// stages and merges (`place` writes the students' columns a questionnaire answers).
    func restricted(to names: [String]) -> KindSpec {
        var spec = self
        spec.columns = names.map { name in
            guard let column = columns.first(where: { $0.name == name }) else {
                preconditionFailure("\(kind.rawValue) has no column \(name)")
            }
            return column
        }
        return spec
    }

    var requiredColumns: [ColumnSpec] { columns.filter(\.required) }
    var keys: [ColumnSpec] { columns.filter(\.isKey) }

    /// The target key columns.
    var keyColumns: [String] { keys.compactMap(\.target?.name) }

    /// The target key columns as the table's unique index compares them, over `alias` (`t.code`) or
    /// bare: an email that names no other kind without regard to case (`lower(t.email)`).
    func comparedKeys(over alias: SQLFragment? = nil) -> [(column: String, expression: SQLFragment, lowered: Bool)] {
        keys.compactMap { column in
            column.target.map { target in
                let name: SQLFragment = alias.map { "\($0).\(identifier: target.name)" } ?? SQLFragment(identifier: target.name)
                let lowered = column.reference == nil && column.type == .email
                return (target.name, lowered ? "lower(\(name))" : name, lowered)
            }
        }
    }

    /// How a target row `t` matches a resolved row `n` (emails without regard to case).
    var keyMatch: SQLFragment {
        SQLFragment(joining: comparedKeys(over: "t").map { "\($0.expression) = n.\(identifier: $0.column)" }, separator: " and ")
    }

    /// The key's display form for duplicate messages, as SQL over the staging row `s`.
    var stagedKey: SQLFragment { SQLFragment(joining: keys.map(\.stagedName), separator: " || ', ' || ") }

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
    var resolveSQL: SQLFragment {
        let values: [SQLFragment] = ["s.line"] + keys.compactMap { $0.target.map { "\($0.resolve) as \(identifier: $0.name)" } }
            + targetColumns.map { "\($0.resolve) as \(identifier: $0.name)" }
            + lists.map { "\($0.column.stagedName) as \(identifier: $0.column.name)" }
        let joins = joinedReferences.map { column, reference -> SQLFragment in
            "left join \(identifier: reference.table) \(reference.alias) on \(reference.key(over: reference.alias)) = \(column.stagedName)"
        } + [resolveJoins]
        return "select \(SQLFragment(joining: values, separator: ", ")) from stage s \(SQLFragment(joining: joins, separator: " "))"
    }

    /// The scalar references' joins over the target row `t` (inner joins for required columns).
    var referenceJoins: SQLFragment {
        SQLFragment(joining: joinedReferences.map { column, reference -> SQLFragment in
            let join: SQLFragment = column.required ? "join" : "left join"
            return "\(join) \(identifier: reference.table) \(reference.alias) on \(reference.alias).id = t.\(identifier: column.target?.name ?? "")"
        }, separator: " ")
    }

    /// Which rows export writes, SQL over `t` and the reference joins: archived rows are left out, and
    /// so are rows that need an archived row (a membership of an archived group), which an import of
    /// the export could not resolve.
    private var exportCondition: SQLFragment {
        var conditions = [exportFilter]
        if case .archive? = retirement { conditions.append(Retirement.archive.isCurrent(over: "t")) }
        for (column, reference) in joinedReferences where column.required {
            if case .archive? = KindSpec.of(reference.definedIn).retirement {
                conditions.append(Retirement.archive.isCurrent(over: reference.alias))
            }
        }
        return SQLFragment(joining: conditions, separator: " and ")
    }

    /// Each column's value as export writes it, SQL over `exportFrom`, in declaration order.
    private var exportValues: [SQLFragment] {
        // Each list column is read from its aggregate, joined as list0, list1 ...
        let listIndexes = Dictionary(uniqueKeysWithValues: lists.enumerated().map { ($1.column.name, $0) })
        return columns.map { column in listIndexes[column.name].map { "list\($0).list" } ?? column.exportExpression }
    }

    /// The table `t` with the joins that `exportValues` and `keyLabel` read.
    private var exportFrom: SQLFragment {
        let listJoins = zip(lists, lists.indices).map { list, index -> SQLFragment in
            "left join (\(list.relation.exportAggregate)) list\(index) on list\(index).parent = t.id"
        }
        return "\(identifier: table) t \(referenceJoins) \(SQLFragment(joining: listJoins, separator: " "))"
    }

    /// A query whose rows are exactly the CSV `import` reads (header = canonical column names).
    var exportSQL: SQLFragment {
        let values = zip(exportValues, columns).map { value, column -> SQLFragment in "\(value) as \(identifier: column.name)" }
        let order = SQLFragment(joining: keys.map(\.exportExpression), separator: ", ")
        return """
            select \(SQLFragment(joining: values, separator: ", ")) from \(exportFrom) where \(exportCondition) order by \(order)
            """
    }

    /// The stored rows that the staged rows name, each as export writes it, archived ones too: `id`,
    /// `key` (`keyLabel`), `retired`, then column i of `columns` as text `c<i>`. What an import's
    /// preview compares before and after its merge.
    var stagedImageSQL: SQLFragment {
        let retired: SQLFragment = retirement.map { "coalesce(\($0.isRetired(over: "t")), false)" } ?? "false"
        let values = exportValues.enumerated().map { index, value -> SQLFragment in "(\(value))::text as c\(index)" }
        return """
            select t.id, \(keyLabel) as key, \(retired) as retired, \(SQLFragment(joining: values, separator: ", ")) \
            from \(exportFrom)
            where t.id in (select t.id from (\(resolveSQL)) n join \(identifier: table) t on \(keyMatch))
            """
    }

    /// A row's key as people read it (`cp-small-tue / Joy Chang` for a membership), SQL over `t` and
    /// the reference joins; a reference whose key is personal data is named by its label.
    var keyLabel: SQLFragment {
        SQLFragment(joining: keys.map { column in column.reference.map { $0.label(over: $0.alias) } ?? column.exportExpression },
                    separator: " || ' / ' || ")
    }

    /// SQL over the row `alias`: true when it belongs, itself or through what it belongs to, to the row
    /// with id `id` of `scope`'s table (a campus or a ministry); nil when the kind reaches no such row.
    func belongs(_ alias: SQLFragment, to scope: Reference, id: Int, depth: Int = 1) -> SQLFragment? {
        if table == scope.table { return "\(alias).id = \(id)" }
        let owner: SQLFragment = "owner\(depth)"
        guard let column = columns.first(where: { $0.name == belongsTo }),
              let reference = column.reference ?? column.list?.reference,
              let ownerBelongs = KindSpec.of(reference.definedIn).belongs(owner, to: scope, id: id, depth: depth + 1)
        else { return nil }
        if let list = column.list {
            let link: SQLFragment = "link\(depth)"
            return """
                exists (select 1 from \(identifier: list.childTable) \(link) join \(identifier: reference.table) \(owner) \
                on \(owner).id = \(link).\(identifier: list.valueColumn) where \(link).\(identifier: list.parentColumn) = \(alias).id \
                and \(ownerBelongs))
                """
        }
        return """
            exists (select 1 from \(identifier: reference.table) \(owner) \
            where \(owner).id = \(alias).\(identifier: column.target?.name ?? column.name) and \(ownerBelongs))
            """
    }

    /// The columns that describe the rows `reference` names, not this kind's own.
    func details(of reference: Reference) -> [(column: ColumnSpec, detail: ReferencedDetail)] {
        columns.compactMap { column in column.detail.flatMap { $0.reference.alias == reference.alias ? (column, $0) : nil } }
    }

    /// Adds, as non-members, the people the staged rows name that crubatch does not know yet, with the
    /// details of each one's first row; selects how many. Nil for kinds that add no one.
    var addPeopleSQL: SQLFragment? {
        guard let (column, reference) = references.first(where: { $0.reference.addsPeople }) else { return nil }
        let details = details(of: reference).map(\.column)
        let names = ([reference.keyColumn] + details.map(\.name) + ["is_member"]).map(SQLFragment.init(identifier:))
        let values = [column.stagedName] + details.map(\.stagedName) + ["false"]
        return """
            with added as (insert into \(identifier: reference.table) (\(SQLFragment(joining: names, separator: ", ")))
            select distinct on (\(column.stagedName)) \(SQLFragment(joining: values, separator: ", ")) from stage s
            where \(column.stagedName) is not null
            and not exists (select 1 from \(identifier: reference.table) r where \(reference.key(over: "r")) = \(column.stagedName))
            order by \(column.stagedName), s.line returning 1)
            select count(*) from added
            """
    }

    /// For a kind whose sync covers what its file names (`syncScopedByFile`): SQL over `t`, true for
    /// the rows that belong to something a row of the file belongs to.
    var fileScope: SQLFragment? {
        guard syncScopedByFile, let owner = columns.first(where: { $0.name == belongsTo })?.target?.name else { return nil }
        return "t.\(identifier: owner) in (select n.\(identifier: owner) from (\(resolveSQL)) n)"
    }
}
