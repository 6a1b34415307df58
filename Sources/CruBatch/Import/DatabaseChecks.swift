import CSVStream
import PostgresClient

/// The checks that need the whole file or the database, run as queries over the staging table:
/// duplicate keys, references, time zones, date order and group capacity.
struct DatabaseChecks {
    let spec: KindSpec
    let connection: PostgresConnection
    let mapping: HeaderMapping
    let file: String

    func run() throws -> [Diagnostic] {
        var found = try duplicates()
        for reference in spec.references { found += try missing(reference) }
        for column in spec.columns where column.type == .timezone && isPresent(column.name) {
            found += try unknownTimeZones(column.name)
        }
        found += try dateOrder()
        if spec.kind == .memberships { found += try overCapacity() }
        return found
    }

    private func isPresent(_ column: String) -> Bool { mapping.fileColumn(of: column, in: spec) != nil }

    private func diagnostic(_ line: String?, column: String, code: DiagnosticCode, message: String,
                            hint: String? = nil) -> Diagnostic {
        Diagnostic(file: file, line: Int(line ?? "0") ?? 0, column: mapping.fileColumn(of: column, in: spec),
                   field: column, code: code, message: message, hint: hint)
    }

    /// The column that names a row in messages (memberships are keyed by group and email).
    private var keyColumn: String { spec.kind == .memberships ? "email" : spec.columns[0].name }

    private var keyIsPersonal: Bool { spec.columns.first { $0.name == keyColumn }?.type == .email }

    private func duplicates() throws -> [Diagnostic] {
        // A hash aggregate finds the repeated keys; only their rows are sorted for the first line.
        let rows = try connection.query("""
            select line, key, first_line from (
                select s.line, \(spec.stagedKey) as key, min(s.line) over (partition by \(spec.stagedKey)) as first_line
                from stage s
                where \(spec.stagedKey) in (select \(spec.stagedKey) from stage s group by 1 having count(*) > 1)) d
            where line <> first_line order by line
            """).rows
        return rows.map { row in
            let what = keyIsPersonal ? "this \(keyColumn)" : "\(keyColumn) \"\(row[1] ?? "")\""
            return diagnostic(row[0], column: keyColumn, code: .duplicateKey,
                              message: "\(what) appears more than once in the file (first on line \(row[2] ?? "?"))",
                              hint: "keep one of the rows; keys are compared without regard to case")
        }
    }

    private func missing(_ reference: ReferenceSpec) throws -> [Diagnostic] {
        guard isPresent(reference.column) else { return [] }
        let column = "s.\"\(reference.column)\""
        let isList = spec.columns.first { $0.name == reference.column }.map { if case .list = $0.type { true } else { false } } ?? false
        let value = isList ? "v.value" : column
        let source = isList ? "stage s cross join lateral unnest(string_to_array(\(column), ';')) as v(value)" : "stage s"
        let rows = try connection.query("""
            select s.line, \(value) from \(source)
            where \(value) is not null
            and not exists (select 1 from \(reference.table) r where \(reference.keyExpression) = \(value) and \(reference.condition))
            order by s.line
            """).rows
        guard !rows.isEmpty else { return [] }
        let personal = reference.table == "people" && reference.noun != "leader"
        let candidates = personal ? [] : try connection.query(
            "select \(reference.keyExpression) from \(reference.table) r where \(reference.condition) limit 5000"
        ).rows.compactMap { $0[0] }
        return rows.map { row in
            let key = row[1] ?? ""
            let suggestion = Suggestion.closest(to: key, among: candidates)
            let named = personal ? "with this email" : "\"\(key)\""
            return diagnostic(row[0], column: reference.column, code: .unknownReference,
                              message: "\(reference.noun) \(named) does not exist" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                              hint: "add it to \(reference.definedIn.fileName) and import that first, or load both with --dir")
        }
    }

    private func unknownTimeZones(_ column: String) throws -> [Diagnostic] {
        let rows = try connection.query("""
            select s.line, s."\(column)" from stage s
            where s."\(column)" is not null and not exists (select 1 from pg_timezone_names z where z.name = s."\(column)")
            order by s.line
            """).rows
        guard !rows.isEmpty else { return [] }
        let names = try connection.query("select name from pg_timezone_names where name like '%/%'").rows.compactMap { $0[0] }
        return rows.map { row in
            let value = row[1] ?? ""
            return diagnostic(row[0], column: column, code: .invalidChoice,
                              message: "\"\(value)\" is not a time zone",
                              hint: Suggestion.closest(to: value, among: names).map { "did you mean \"\($0)\"?" }
                                  ?? "use an IANA name such as America/Los_Angeles")
        }
    }

    /// Events and missions must not end before they start.
    private func dateOrder() throws -> [Diagnostic] {
        let pair: (String, String)
        switch spec.kind {
        case .events: pair = ("starts_at", "ends_at")
        case .missions: pair = ("starts_on", "ends_on")
        default: return []
        }
        guard isPresent(pair.1) else { return [] }
        let rows = try connection.query("""
            select n.line from (\(spec.resolveSQL)) n where n.\(pair.1) < n.\(pair.0) order by n.line
            """).rows
        return rows.map { row in
            diagnostic(row[0], column: pair.1, code: .outOfRange, message: "\(pair.1) is before \(pair.0)",
                       hint: "check the two dates; the end must not come before the start")
        }
    }

    /// Joins beyond a group's capacity, counting current members and earlier rows of the file.
    private func overCapacity() throws -> [Diagnostic] {
        let rows = try connection.query("""
            with incoming as (
                select s.line, g.id as group_id, g.code, g.capacity,
                       row_number() over (partition by g.id order by s.line) as rank
                from stage s join community_groups g on g.code = s."group" join people p on lower(p.email) = s.email
                where g.capacity is not null
                and not exists (select 1 from memberships m where m.group_id = g.id and m.person_id = p.id)
            )
            select i.line, i.code, i.capacity, (select count(*) from memberships m where m.group_id = i.group_id) as members
            from incoming i
            where i.rank + (select count(*) from memberships m where m.group_id = i.group_id) > i.capacity
            order by i.line
            """).rows
        return rows.map { row in
            diagnostic(row[0], column: "group", code: .overCapacity,
                       message: "group \"\(row[1] ?? "")\" is full: capacity \(row[2] ?? "?"), \(row[3] ?? "?") members now and earlier rows of this file fill it",
                       hint: "raise the group's capacity in groups.csv or place the student in another group")
        }
    }
}
