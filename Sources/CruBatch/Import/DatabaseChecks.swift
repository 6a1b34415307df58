import CSVStream
import PostgresClient

/// The checks that need the whole file or the database, run as queries over the staging table:
/// duplicate keys, references, time zones, and the kind's row rules (date order, group capacity).
struct DatabaseChecks {
    let spec: KindSpec
    let connection: PostgresConnection
    let mapping: HeaderMapping
    let file: String
    /// Lock the file's groups before counting their members (an import: the count then holds until
    /// it commits); validation takes no lock.
    let locksGroups: Bool

    func run() throws -> [Diagnostic] {
        var found = try duplicates()
        for (column, reference) in spec.references where isPresent(column.name) {
            found += try missing(column, reference)
        }
        for column in spec.columns where column.type == .timezone && isPresent(column.name) {
            found += try unknownTimeZones(column)
        }
        for rule in spec.rules {
            switch rule {
            case .endNotBeforeStart(let start, let end): found += try dateOrder(start: start, end: end)
            case .groupCapacity: found += try overCapacity()
            }
        }
        return found
    }

    private func isPresent(_ column: String) -> Bool { mapping.fileColumn(of: column, in: spec) != nil }

    private func diagnostic(_ line: Int, column: String, code: DiagnosticCode, message: String,
                            hint: String? = nil) -> Diagnostic {
        Diagnostic(file: file, line: line, column: mapping.fileColumn(of: column, in: spec),
                   field: column, code: code, message: message, hint: hint)
    }

    private func duplicates() throws -> [Diagnostic] {
        // A hash aggregate finds the repeated keys; only their rows are sorted for the first line.
        let key = spec.stagedKey
        let rows = try connection.query("""
            select line, key, first_line from (
                select s.line, \(unescaped: key) as key, min(s.line) over (partition by \(unescaped: key)) as first_line
                from stage s
                where \(unescaped: key) in (select \(unescaped: key) from stage s group by 1 having count(*) > 1)) d
            where line <> first_line order by line
            """).rows
        let column = spec.messageColumn
        return try rows.map { row in
            let what = column.type == .email ? "this \(column.name)" : "\(column.name) \"\(try row.decode(String.self, 1))\""
            return diagnostic(try row.decode(Int.self, 0), column: column.name, code: .duplicateKey,
                              message: "\(what) appears more than once in the file (first on line \(try row.decode(Int.self, 2)))",
                              hint: "keep one of the rows; keys are compared without regard to case")
        }
    }

    private func missing(_ column: ColumnSpec, _ reference: Reference) throws -> [Diagnostic] {
        let cell = column.stagedName
        let isList = column.list != nil
        let value = isList ? "v.value" : cell
        let source = isList ? "stage s cross join lateral unnest(string_to_array(\(cell), ';')) as v(value)" : "stage s"
        let rows = try connection.query("""
            select s.line, \(unescaped: value) from \(unescaped: source)
            where \(unescaped: value) is not null
            and not exists (select 1 from \(unescaped: reference.table) r
                            where \(unescaped: reference.key(over: "r")) = \(unescaped: value) and \(unescaped: reference.condition))
            order by s.line
            """).rows
        guard !rows.isEmpty else { return [] }
        // Students are personal data: never suggest another student's email.
        let personal = reference.table == "people" && reference.condition == "true"
        let candidates = personal ? [] : try connection.query("""
            select \(unescaped: reference.key(over: "r")) from \(unescaped: reference.table) r
            where \(unescaped: reference.condition) limit 5000
            """).rows.map { try $0.decode(String.self, 0) }
        return try rows.map { row in
            let key = try row.decode(String.self, 1)
            let suggestion = Suggestion.closest(to: key, among: candidates)
            let named = personal ? "with this email" : "\"\(key)\""
            return diagnostic(try row.decode(Int.self, 0), column: column.name, code: .unknownReference,
                              message: "\(reference.noun) \(named) does not exist" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                              hint: "add it to \(reference.definedIn.fileName) and import that first, or load both with --dir")
        }
    }

    /// Time zones the cells already passed as tz database names (`TimeZoneNames`) that this
    /// PostgreSQL server's own time zone database lacks, so it could not convert times in them.
    private func unknownTimeZones(_ column: ColumnSpec) throws -> [Diagnostic] {
        let cell = column.stagedName
        let rows = try connection.query("""
            select s.line, \(unescaped: cell) from stage s
            where \(unescaped: cell) is not null and not exists (select 1 from pg_timezone_names z where z.name = \(unescaped: cell))
            order by s.line
            """).rows
        return try rows.map { row in
            diagnostic(try row.decode(Int.self, 0), column: column.name, code: .invalidChoice,
                       message: "time zone \"\(try row.decode(String.self, 1))\" is not known to this PostgreSQL server",
                       hint: "update the time zone data (tzdata) of the database server, or use an older name of the zone")
        }
    }

    /// Rows whose `end` comes before their `start` (both resolved, so time zones count).
    private func dateOrder(start: String, end: String) throws -> [Diagnostic] {
        guard isPresent(end) else { return [] }
        let rows = try connection.query("""
            select n.line from (\(unescaped: spec.resolveSQL)) n where n.\(unescaped: end) < n.\(unescaped: start) order by n.line
            """).rows
        return try rows.map { row in
            diagnostic(try row.decode(Int.self, 0), column: end, code: .outOfRange, message: "\(end) is before \(start)",
                       hint: "check the two dates; the end must not come before the start")
        }
    }

    /// Joins beyond a group's capacity, counting current members and earlier rows of the file.
    ///
    /// The capacity trigger would refuse the same joins, without the line. Locking the groups first,
    /// in id order as `place` does, keeps every other writer out of them until this load commits.
    private func overCapacity() throws -> [Diagnostic] {
        if locksGroups {
            try connection.query("""
                select g.id from community_groups g where g.code in (select s."group" from stage s)
                order by g.id for no key update
                """)
        }
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
        return try rows.map { row in
            diagnostic(try row.decode(Int.self, 0), column: "group", code: .overCapacity,
                       message: "group \"\(try row.decode(String.self, 1))\" is full: capacity \(try row.decode(Int.self, 2)), \(try row.decode(Int.self, 3)) members now and earlier rows of this file fill it",
                       hint: "raise the group's capacity in groups.csv or place the student in another group")
        }
    }
}
