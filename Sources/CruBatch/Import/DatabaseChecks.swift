import CSVStream
import PostgresClient

/// The checks that need the whole file or the database, run as queries over the staging table:
/// names resolved to codes, duplicate keys, references, time zones, and the kind's row rules (zone
/// defaults, date order, group capacity). Rows already rejected by their cells are staged too, so
/// their other problems are reported in the same run.
struct DatabaseChecks {
    let spec: KindSpec
    let connection: PostgresConnection
    let mapping: HeaderMapping
    let file: String
    /// Lock the file's groups before counting their members (an import: the count then holds until
    /// it commits); validation takes no lock.
    let locksGroups: Bool
    /// Whether a blank cell of an existing row keeps its stored value (then no default is applied).
    let blank: ImportOptions.Blank
    /// What a new person who probably is someone known already is (`--on-duplicate`).
    let onDuplicate: Diagnostic.Severity
    /// The only campuses the rows may belong to (a campus account of the console); nil: any.
    let campuses: [String]?
    /// The rows of the load refused before this file.
    var refused = RefusedRows()

    /// Every problem found (errors and warnings); `rejectedLines` are the rows whose cells already
    /// failed, which take no seat in a group.
    func run(rejectedLines: Set<Int>) throws -> [Diagnostic] {
        // Names first: every later check, and the merge, see codes.
        var found: [Diagnostic] = []
        var ambiguous = Set<AmbiguousCell>()
        // Columns whose every value is a code, or a name that matched one row, have no unknown value.
        var allResolved = Set<String>()
        for (column, reference) in spec.references where reference.nameColumn != nil && isPresent(column.name) {
            let names = try resolveNames(column, reference, ambiguous: &ambiguous)
            found += names.diagnostics
            if names.allResolved && reference.condition == nil { allResolved.insert(column.name) }
        }
        if let walkIns = spec.walkIns { found += try identifyWalkIns(walkIns) }
        try followAliases()
        found += try duplicates()
        found += try possibleDuplicates()
        for (column, reference) in spec.references where isPresent(column.name) && !allResolved.contains(column.name) {
            let above = try refusedAbove(column, reference)
            found += above.diagnostics
            ambiguous.formUnion(above.cells)
            found += try reference.addsPeople ? unnamedNewPeople(column, reference) : missing(column, reference, except: ambiguous)
        }
        if let campuses { found += try forbiddenCampuses(campuses.map { $0.lowercased() }) }
        for column in spec.columns where column.type == .timezone && isPresent(column.name) {
            found += try unknownTimeZones(column)
        }
        for column in spec.columns where column.isUnique && isPresent(column.name) {
            found += try takenValues(column)
        }
        for rule in spec.rules {
            switch rule {
            case .timeZoneDefault(let column, let inheritedThrough):
                found += try zoneDefaults(column, inheritedThrough: inheritedThrough)
            case .endNotBeforeStart(let start, let end): found += try dateOrder(start: start, end: end, strictly: false)
            case .endAfterStart(let start, let end): found += try dateOrder(start: start, end: end, strictly: true)
            case .eventEndsAfterStart: found += try eventsEndingTooSoon()
            case .periodsWithin(let periods, let start, let end): found += try periodsOutside(periods, start: start, end: end)
            case .groupCapacity:
                let rejected = rejectedLines.union(found.filter { $0.severity == .error }.map(\.line))
                found += try overCapacity(excluding: rejected)
            case .together(let columns): found += try partlyGiven(columns)
            case .rideshareCovers(let event, let direction): found += try ridesNotShared(event: event, direction: direction)
            case .departureEachWay(let direction, let to, let from):
                found += try departuresMissing(direction: direction, to: to, from: from)
            }
        }
        return found
    }

    /// A cell value reported as ambiguous on a line, so it is not reported as unknown too.
    private struct AmbiguousCell: Hashable {
        let line: Int
        let value: String
    }

    /// A name as a cell gives it, with the scope of its row ('' for none).
    private struct ScopedName: Hashable {
        let text: String
        let scope: String
    }

    /// SQL for a reference column's values: one per row, or one per item of a list (`v.value` over
    /// the list unnested), with the rows they come from.
    private func values(of column: ColumnSpec) -> (value: SQLFragment, source: SQLFragment) {
        guard column.list != nil else { return (column.stagedName, "stage s") }
        return ("v.value", "stage s cross join lateral unnest(string_to_array(\(column.stagedName), ';')) as v(value)")
    }

    /// Rewrites the stage's names (`Cru Cal Poly`) to the codes they match (`NameMatcher`), so the
    /// reference joins, the duplicate check and the merge see codes. Only the distinct values that
    /// are not codes are matched, in Swift, where import and place share one rule; one UPDATE then
    /// rewrites the rows that hold them. A name that matches several rows is reported here; one that
    /// matches none is left for `missing`. `allResolved`: every value is now a code.
    private func resolveNames(_ column: ColumnSpec, _ reference: Reference, ambiguous: inout Set<AmbiguousCell>)
        throws -> (diagnostics: [Diagnostic], allResolved: Bool) {
        let cell = column.stagedName
        // A row without a scope has '' (never a code): arrays of binds hold no NULL.
        let scope: SQLFragment = column.nameScope.map { "coalesce(s.\(identifier: $0), '')" } ?? "''"
        func isCode(_ value: SQLFragment) -> SQLFragment {
            "exists (select 1 from \(identifier: reference.table) r where \(reference.key(over: "r")) = \(value))"
        }
        // The distinct cells are looked at, not every row: a million rows hold a few thousand lists,
        // and their items are mostly codes. Each name comes with the cells that hold it (a list's
        // UPDATE rewrites the rows of those cells; a plain cell is the name itself).
        let distinctCells: SQLFragment = "select distinct \(cell) as cell, \(scope) as scope from stage s where \(cell) is not null"
        let namesInCells: SQLFragment = column.list != nil ? """
            select n.value, g.scope, g.cell from (\(distinctCells)) g
            cross join lateral unnest(string_to_array(g.cell, ';')) as n(value)
            where not \(isCode("n.value"))
            """ : "select n.cell, n.scope, n.cell from (\(distinctCells)) n where not \(isCode("n.cell"))"
        var names: [ScopedName: [String]] = [:]
        for row in try connection.query(PostgresQuery(namesInCells)).rows {
            let (text, scope, cell) = try row.decode((String, String, String).self)
            names[ScopedName(text: text, scope: scope), default: []].append(cell)
        }
        guard let nameColumn = reference.nameColumn else { return ([], names.isEmpty) }
        guard !names.isEmpty else { return ([], true) }
        let matcher = NameMatcher(try connection.query("""
            select r.\(identifier: reference.keyColumn), r.\(identifier: nameColumn), \(unescaped: reference.scope ?? "''")
            from \(identifier: reference.table) r
            """).rows.map { row in
            let (code, name, scope) = try row.decode((String, String, String).self)
            return NameMatcher.Candidate(code: code, name: name, scope: scope)
        })
        var found: (values: [String], scopes: [String], codes: [String], cells: Set<ScopedName>) = ([], [], [], [])
        var several: [ScopedName: [NameMatcher.Candidate]] = [:]
        var unmatched = false
        for (name, holding) in names {
            switch matcher.match(name.text, scope: name.scope.isEmpty ? nil : name.scope) {
            case .found(let candidate):
                found.values.append(name.text)
                found.scopes.append(name.scope)
                found.codes.append(candidate.code)
                found.cells.formUnion(holding.map { ScopedName(text: $0, scope: name.scope) })
            case .ambiguous(let candidates): several[name] = candidates
            case .none: unmatched = true
            }
        }
        if !found.values.isEmpty {
            let matches: PostgresQuery = "unnest(\(found.values)::text[], \(found.scopes)::text[], \(found.codes)::text[]) as m(value, scope, code)"
            if column.list != nil {
                // The rows of the cells that hold a name (the cell tested alone first, against a hashed
                // array, then with its scope), each list's items joined with the matches.
                try connection.query("""
                    update stage s set \(identifier: column.name) = (
                        select string_agg(coalesce(m.code, v.value), ';' order by v.position)
                        from unnest(string_to_array(\(unescaped: cell), ';')) with ordinality as v(value, position)
                        left join \(matches) on m.value = v.value and m.scope = \(unescaped: scope))
                    where \(unescaped: cell) = any(\(Array(Set(found.cells.map(\.text))))::text[])
                    and (\(unescaped: cell), \(unescaped: scope)) in (select * from unnest(
                        \(found.cells.map(\.text))::text[], \(found.cells.map(\.scope))::text[]))
                    """)
            } else {
                try connection.query("""
                    update stage s set \(identifier: column.name) = m.code from \(matches)
                    where \(unescaped: cell) = m.value and m.scope = \(unescaped: scope)
                    """)
            }
        }
        guard !several.isEmpty else { return ([], !unmatched) }
        let texts = Array(Set(several.keys.map(\.text)))
        let (value, source) = values(of: column)
        let rows = try connection.query("""
            select s.line, \(unescaped: value), \(unescaped: scope) from \(unescaped: source)
            where \(unescaped: value) = any(\(texts)::text[]) order by s.line
            """).rows
        let diagnostics = try rows.compactMap { row -> Diagnostic? in
            let (line, text, scope) = try row.decode((Int, String, String).self)
            guard let candidates = several[ScopedName(text: text, scope: scope)] else { return nil }
            ambiguous.insert(AmbiguousCell(line: line, value: text))
            return diagnostic(line, column: column.name, code: .ambiguousReference,
                              message: "\(reference.noun) \"\(text)\" matches \(candidates.count): "
                                  + candidates.map(\.label).joined(separator: ", "),
                              hint: "write the code, or enough of the name to tell them apart")
        }
        return (diagnostics, false)
    }

    func isPresent(_ column: String) -> Bool { mapping.fileColumn(of: column, in: spec) != nil }

    func diagnostic(_ line: Int, column: String, code: DiagnosticCode, severity: Diagnostic.Severity? = nil,
                    message: String, hint: String? = nil) -> Diagnostic {
        Diagnostic(file: file, line: line, column: mapping.fileColumn(of: column, in: spec),
                   field: column, code: code, severity: severity, message: message, hint: hint)
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
            let (line, key, first) = try row.decode((Int, String, Int).self)
            // A walk-in's key is made from the row's name and phone: the row gives no email to name.
            if let walkIns = spec.walkIns, key.hasSuffix("@" + WalkIns.domain) {
                return diagnostic(line, column: "first_name", code: .duplicateKey,
                                  message: "this walk-in (no \(walkIns.key); the same name and phone as line \(first)) appears more than once in the file",
                                  hint: "keep one of the rows: the same person checks in once per event")
            }
            let what = column.type == .email ? "this \(column.name)" : "\(column.name) \"\(key)\""
            return diagnostic(line, column: column.name, code: .duplicateKey,
                              message: "\(what) appears more than once in the file (first on line \(first))",
                              hint: "keep one of the rows; keys are compared without regard to case")
        }
    }

    private func missing(_ column: ColumnSpec, _ reference: Reference, except ambiguous: Set<AmbiguousCell>) throws -> [Diagnostic] {
        let (value, source) = values(of: column)
        // A walk-in's key names someone added after the checks.
        let walkIn: PostgresQuery = spec.walkIns?.key == column.name
            ? "and \(unescaped: value) not like \("%@" + WalkIns.domain)" : ""
        let rows = try connection.query("""
            select s.line, \(unescaped: value) from \(unescaped: source)
            where \(unescaped: value) is not null \(walkIn)
            and not exists (select 1 from \(identifier: reference.table) r
                            where \(unescaped: reference.key(over: "r")) = \(unescaped: value) \(unescaped: reference.andCondition))
            order by s.line
            """).rows
        guard !rows.isEmpty else { return [] }
        // Students are personal data: never suggest another student's email. Names are suggested
        // as well as codes where a cell may hold either.
        let personal = reference.labelColumns != nil
        let names: SQLFragment = reference.nameColumn.map { ", r.\(identifier: $0)" } ?? ""
        let candidates = personal ? [] : try connection.query("""
            select \(unescaped: reference.key(over: "r"))\(unescaped: names) from \(identifier: reference.table) r
            \(unescaped: reference.whereCondition) limit 5000
            """).rows.flatMap { row in try row.values.indices.map { try row.decode(String.self, $0) } }
        return try rows.compactMap { row -> Diagnostic? in
            let (line, key) = try row.decode((Int, String).self)
            if ambiguous.contains(AmbiguousCell(line: line, value: key)) { return nil }
            let named = personal ? "with this email" : "\"\(key)\""
            if let absence = reference.absence {
                return diagnostic(line, column: column.name, code: absence.code,
                                  message: "\(reference.noun) \(named) \(absence.message)", hint: absence.hint)
            }
            let suggestion = Suggestion.closest(to: key, among: candidates)
            return diagnostic(line, column: column.name, code: .unknownReference,
                              message: "\(reference.noun) \(named) does not exist" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                              hint: "add it to \(reference.definedIn.fileName) and import that first, or load both with --dir")
        }
    }

    /// Rows naming a row the load refused before this file (which is why it does not exist): the
    /// problem says so, with that row's first error as its note; the cells are returned so they
    /// are not reported as unknown too.
    private func refusedAbove(_ column: ColumnSpec, _ reference: Reference) throws -> (diagnostics: [Diagnostic], cells: Set<AmbiguousCell>) {
        let keys = refused.keys(of: reference.table)
        guard !keys.isEmpty else { return ([], []) }
        let (value, source) = values(of: column)
        let rows = try connection.query("""
            select s.line, \(unescaped: value) from \(unescaped: source)
            where lower(\(unescaped: value)) = any(\(keys)::text[])
            and not exists (select 1 from \(identifier: reference.table) r
                            where \(unescaped: reference.key(over: "r")) = \(unescaped: value) \(unescaped: reference.andCondition))
            order by s.line
            """).rows
        var diagnostics: [Diagnostic] = []
        var cells: Set<AmbiguousCell> = []
        for row in rows {
            let (line, key) = try row.decode((Int, String).self)
            guard let note = refused.note(table: reference.table, key: key) else { continue }
            let named = reference.labelColumns != nil ? "with this email" : "\"\(key)\""
            var problem = diagnostic(line, column: column.name, code: .unknownReference,
                                     message: "\(reference.noun) \(named) was refused above, so it does not exist",
                                     hint: "fix the row the note names; this row loads with it")
            problem.note = note
            diagnostics.append(problem)
            cells.insert(AmbiguousCell(line: line, value: key))
        }
        return (diagnostics, cells)
    }

    /// Rows naming someone crubatch does not know yet, who is added as a non-member, without a detail
    /// a person needs (a first and a last name).
    private func unnamedNewPeople(_ column: ColumnSpec, _ reference: Reference) throws -> [Diagnostic] {
        let unknown: SQLFragment = """
            \(column.stagedName) is not null and not exists (select 1 from \(identifier: reference.table) r
            where \(reference.key(over: "r")) = \(column.stagedName))
            """
        return try spec.details(of: reference).filter(\.detail.requiredWhenNew).flatMap { detail, _ in
            let given: SQLFragment = isPresent(detail.name) ? "\(detail.stagedName) is null" : "true"
            return try connection.query("""
                select s.line from stage s where \(unescaped: unknown) and \(unescaped: given) order by s.line
                """).rows.map { row in
                diagnostic(try row.decode(Int.self), column: detail.name, code: .missingValue,
                           message: "\(detail.name) is required for a \(reference.noun) crubatch does not know yet, who is added as a non-member",
                           hint: "give the first and last name (and a phone) of someone not in students.csv or leaders.csv")
            }
        }
    }

    /// Rows that give some of `columns` but not all (a latitude without its longitude).
    private func partlyGiven(_ columns: [String]) throws -> [Diagnostic] {
        guard columns.contains(where: isPresent) else { return [] }
        func cell(_ name: String) -> SQLFragment { isPresent(name) ? "s.\(identifier: name)" : "null" }
        return try columns.flatMap { name in
            let others = columns.filter { $0 != name }
            let given = SQLFragment(joining: others.map { "\(cell($0)) is not null" }, separator: " or ")
            return try connection.query("""
                select s.line from stage s where \(unescaped: cell(name)) is null and (\(unescaped: given)) order by s.line
                """).rows.map { row in
                diagnostic(try row.decode(Int.self), column: name, code: .missingValue,
                           message: "\(name) is empty, but \(others.joined(separator: " and ")) is given",
                           hint: "give \(columns.joined(separator: " and ")) together, or leave them all empty")
            }
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
            let (line, zone) = try row.decode((Int, String).self)
            return diagnostic(line, column: column.name, code: .invalidChoice,
                       message: "time zone \"\(zone)\" is not known to this PostgreSQL server",
                       hint: "update the time zone data (tzdata) of the database server, or use an older name of the zone")
        }
    }

    /// New rows without a time zone (and, with `--blank clear`, existing ones): they take the zone
    /// that the campuses of their `inheritedThrough` ministries share, rewritten into the stage;
    /// otherwise the default, with a warning naming it.
    private func zoneDefaults(_ column: String, inheritedThrough list: String?) throws -> [Diagnostic] {
        let isNew = SQLFragment(joining: spec.keys.map { key -> SQLFragment in
            let stored: SQLFragment = "t.\(identifier: key.target!.name)"
            return key.type == .email ? "lower(\(stored)) = \(key.stagedName)" : "\(stored) = \(key.stagedName)"
        }, separator: " and ")
        let clearing: SQLFragment = blank == .clear ? "true" : "false"
        let needsZone: SQLFragment = """
            s.\(identifier: column) is null and (\(clearing) or not exists (select 1 from \(identifier: spec.table) t where \(isNew)))
            """
        let defaultZone = TimeZoneNames.defaultZone
        guard let list else {
            let rows = try connection.query("select s.line from stage s where \(unescaped: needsZone) order by s.line").rows
            return try rows.map { row in
                diagnostic(try row.decode(Int.self), column: column, code: .assumedValue,
                           message: "no \(column) given: \(defaultZone) (the default) is used",
                           hint: "give the \(spec.kind.noun)'s zone, e.g. America/Denver or Mountain")
            }
        }
        let rows = try connection.query("""
            select s.line, count(distinct c.timezone), string_agg(distinct c.timezone, ', ' order by c.timezone)
            from stage s
            left join lateral unnest(string_to_array(s.\(identifier: list), ';')) as v(code) on true
            left join ministries m on m.code = v.code left join campuses c on c.id = m.campus_id
            where \(unescaped: needsZone)
            group by s.line order by s.line
            """).rows.map { row in
            let (line, zones, names) = try row.decode((Int, Int, String?).self)
            return (line: line, zones: zones, names: names)
        }
        let inherited = rows.filter { $0.zones == 1 }
        if !inherited.isEmpty {
            try connection.query("""
                update stage s set \(identifier: column) = z.zone
                from unnest(\(inherited.map(\.line))::int[], \(inherited.map { $0.names ?? "" })::text[]) as z(line, zone)
                where s.line = z.line
                """)
        }
        return rows.filter { $0.zones != 1 }.map { row in
            let why = row.zones == 0 ? "none of its \(list) is on a campus crubatch knows"
                : "its \(list) are on campuses in different zones (\(row.names ?? ""))"
            return diagnostic(row.line, column: column, code: .assumedValue,
                              message: "no \(column) given and \(why): \(defaultZone) (the default) is used",
                              hint: "give the \(spec.kind.noun)'s zone, e.g. America/Los_Angeles or Pacific")
        }
    }

    /// Rows whose `end` comes before their `start`, or (`strictly`) on it (both resolved, so time zones count).
    private func dateOrder(start: String, end: String, strictly: Bool) throws -> [Diagnostic] {
        guard isPresent(end) else { return [] }
        let rows = try connection.query("""
            select n.line from (\(unescaped: spec.resolveSQL)) n
            where n.\(identifier: end) \(unescaped: strictly ? "<=" : "<") n.\(identifier: start) order by n.line
            """).rows
        return try rows.map { row in
            diagnostic(try row.decode(Int.self), column: end, code: .outOfRange,
                       message: "\(end) is \(strictly ? "not after" : "before") \(start)",
                       hint: "check the two dates; the end must \(strictly ? "come after" : "not come before") the start")
        }
    }

    /// Events that end before they start, or when they start (all-day events may: they last their
    /// first day). A timed event's times are compared as its calendar shows them, wall-clock times in
    /// its zone: 01:30 PDT to 01:15 PST on the night the clocks fall back ends before it starts there.
    /// A start that the event's zone skips in spring does not exist: PostgreSQL, like RFC 5545, reads
    /// it an hour later, which is how 02:30 to 03:30 on that night ends when it starts. Such a start is
    /// reported at the start, with the time it was read as.
    private func eventsEndingTooSoon() throws -> [Diagnostic] {
        guard isPresent("ends_at") else { return [] }
        let wallClock = SQLFragment(literal: #"YYYY-MM-DD"T"HH24:MI"#)
        let rows = try connection.query("""
            select n.line, n.ends_at = n.starts_at, to_char(n.ends_at at time zone z.zone, \(unescaped: wallClock)),
                   z.zone,
                   case when s.starts_at !~ '(Z|[+-][0-9][0-9]:[0-9][0-9])$'
                        and n.starts_at at time zone z.zone <> s.starts_at::timestamp
                   then to_char(s.starts_at::timestamp, \(unescaped: wallClock)) || '|'
                        || to_char(n.starts_at at time zone z.zone, 'HH24:MI') end
            from (\(unescaped: spec.resolveSQL)) n join stage s on s.line = n.line left join events e on e.code = s.code
            cross join lateral (select \(unescaped: KindCatalog.eventZone) as zone) z
            where n.ends_at < n.starts_at
               or (n.all_day is not true and n.ends_at at time zone z.zone <= n.starts_at at time zone z.zone)
            order by n.line
            """).rows
        return try rows.map { row in
            let (line, same, end, zone, skippedHour) = try row.decode((Int, Bool, String, String, String?).self)
            if let skipped = skippedHour?.split(separator: "|") {
                return diagnostic(line, column: "starts_at", code: .outOfRange,
                                  message: "starts_at \(skipped[0]) does not exist in \(zone) (the clocks skip that "
                                      + "hour) and is read as \(skipped[1]), which is not before ends_at \(end)",
                                  hint: "give the time the event really starts, outside the hour the clocks skip")
            }
            return diagnostic(line, column: "ends_at", code: .outOfRange,
                              message: same ? "ends_at is the same time as starts_at: an event ends after it starts"
                                  : "ends_at is before starts_at",
                              hint: same ? "give the time it ends, or leave ends_at empty when it is not known"
                                  : "check the two dates; the end must come after the start")
        }
    }

    /// Periods (a term's breaks) that begin before `start` or end after `end`.
    private func periodsOutside(_ periods: String, start: String, end: String) throws -> [Diagnostic] {
        guard isPresent(periods) else { return [] }
        let rows = try connection.query("""
            select n.line, p->>'name', (p->>'starts_on') || '..' || (p->>'ends_on'),
                   n.\(identifier: start)::text || '..' || n.\(identifier: end)::text
            from (\(unescaped: spec.resolveSQL)) n cross join lateral jsonb_array_elements(n.\(identifier: periods)) p
            where (p->>'starts_on')::date < n.\(identifier: start) or (p->>'ends_on')::date > n.\(identifier: end)
            order by n.line, p->>'starts_on'
            """).rows
        return try rows.map { row in
            let (line, name, dates, term) = try row.decode((Int, String, String, String).self)
            return diagnostic(line, column: periods, code: .outOfRange,
                       message: "\(name) (\(dates)) falls outside \(start)..\(end), \(term)",
                       hint: "a break lies inside its term: check its dates, or the term's")
        }
    }

    /// Values of a unique column (an event's UID) that two rows of the file give, or that another stored
    /// row holds already.
    private func takenValues(_ column: ColumnSpec) throws -> [Diagnostic] {
        guard let name = column.target?.name else { return [] }
        let staged: SQLFragment = "o.\(identifier: column.name)", target = SQLFragment(identifier: name)
        let rows = try connection.query("""
            select n.line, n.\(unescaped: target), (select min(o.line) from stage o where \(unescaped: staged) = n.\(unescaped: target))
            from (\(unescaped: spec.resolveSQL)) n
            where n.\(unescaped: target) is not null and (
                exists (select 1 from stage o where \(unescaped: staged) = n.\(unescaped: target) and o.line < n.line)
                or exists (select 1 from \(identifier: spec.table) t
                           where t.\(unescaped: target) = n.\(unescaped: target) and not (\(unescaped: spec.keyMatch))))
            order by n.line
            """).rows
        return try rows.map { row in
            let (line, value, first) = try row.decode((Int, String, Int).self)
            let what = first < line ? "appears more than once in the file (first on line \(first))"
                : "is already the \(column.name) of another \(spec.kind.noun)"
            return diagnostic(line, column: column.name, code: .duplicateKey,
                              message: "\(column.name) \"\(value)\" \(what)",
                              hint: "a \(column.name) names one row only; keep it on one of them")
        }
    }

    /// Rows a campus account may not load: its campus cell names another campus or none, or the row
    /// would change a row of another campus (a student listed at another school). A group's or a
    /// team's campus is its ministry's, a membership's its group's (`campusPath`). A kind whose rows
    /// reach no campus is an admin's to load: each of its rows is refused.
    private func forbiddenCampuses(_ allowed: [String]) throws -> [Diagnostic] {
        let yours = allowed.sorted().joined(separator: ", ")
        let hint = "a campus account loads the rows of its campuses (\(yours)) only; an admin loads the others"
        guard let path = Self.campusPath(of: spec), let column = path.first?.column, let target = column.target?.name else {
            return try connection.query("select line from stage order by line").rows.map { row in
                diagnostic(try row.decode(Int.self, 0), column: spec.columns[0].name, code: .forbiddenCampus,
                           message: "\(spec.kind.noun) rows reach no campus", hint: hint)
            }
        }
        let cell: SQLFragment = isPresent(column.name) ? column.stagedName : "null::text"
        let outsideAllowed: PostgresQuery = "(c.code is null or c.code <> all(\(allowed)::text[]))"
        // What the row's own cell says: a campus code as written, or the campus of the row it names (a
        // name no row has is the reference check's unknown-reference, not this one's).
        let named: PostgresQuery = path.count == 1 ? """
            select s.line, 0 as source, coalesce(\(unescaped: cell), ''), '' from stage s
            where \(unescaped: cell) is null or lower(\(unescaped: cell)) <> all(\(allowed)::text[])
            """ : """
            select n.line, 1, coalesce(\(unescaped: cell), ''), coalesce(c.code, '') from resolved n
            join stage s on s.line = n.line \(unescaped: Self.campusJoins(path, from: "n"))
            where n.\(identifier: target) is not null and \(outsideAllowed)
            """
        let rows = try connection.query("""
            with resolved as materialized (\(unescaped: spec.resolveSQL))
            \(named)
            union all
            select n.line, 2, '', coalesce(c.code, '') from resolved n
            join \(identifier: spec.table) t on \(unescaped: spec.keyMatch) \(unescaped: Self.campusJoins(path, from: "t"))
            where \(outsideAllowed)
            order by 1, 2
            """).rows
        var seen: Set<Int> = []
        return try rows.compactMap { row in
            let (line, source, given, campus) = try row.decode((Int, Int, String, String).self)
            guard seen.insert(line).inserted else { return nil }
            let message = switch source {
            case 0: given.isEmpty ? "\(column.name) is empty" : "\(column.name) \"\(given)\" is not one of your campuses"
            case 1: campus.isEmpty ? "\(column.name) \"\(given)\" belongs to no campus of yours"
                                   : "\(column.name) \"\(given)\" belongs to campus \"\(campus)\""
            default: campus.isEmpty ? "this \(spec.kind.noun) belongs to no campus of yours"
                                    : "this \(spec.kind.noun) belongs to campus \"\(campus)\""
            }
            // A row that would change another campus's row is marked at what names that row.
            return diagnostic(line, column: source == 2 ? spec.messageColumn.name : column.name, code: .forbiddenCampus,
                              message: message, hint: hint)
        }
    }

    /// The references that lead from a row of `spec` to its campus, the campus reference last: a
    /// student's campus column; a group's ministry, then the ministry's campus; a membership's group,
    /// its ministry, its campus. Nil when the rows reach no campus (campuses themselves, events).
    static func campusPath(of spec: KindSpec) -> [(column: ColumnSpec, reference: Reference)]? {
        let scalar = spec.references.filter { $0.column.list == nil && $0.column.target != nil }
        if let campus = scalar.first(where: { $0.reference.table == "campuses" }) { return [campus] }
        for link in scalar where [.ministries, .groups].contains(link.reference.definedIn) {
            if let rest = campusPath(of: KindSpec.of(link.reference.definedIn)) { return [link] + rest }
        }
        return nil
    }

    /// Left joins from the row `alias` along `path` to its campus, aliased `c`.
    private static func campusJoins(_ path: [(column: ColumnSpec, reference: Reference)], from alias: String) -> SQLFragment {
        var previous = alias
        return SQLFragment(joining: path.enumerated().map { index, link -> SQLFragment in
            let next = index == path.count - 1 ? "c" : "h\(index)"
            defer { previous = next }
            return """
                left join \(identifier: link.reference.table) \(identifier: next) on \(identifier: next).id = \(identifier: previous).\(identifier: link.column.target?.name ?? "")
                """
        }, separator: " ")
    }

    /// Joins beyond a group's capacity, counting current members (not those who left) and earlier
    /// rows of the file. A row that makes someone a member again (or anew) joins; a `left` row does not.
    ///
    /// The capacity trigger would refuse the same joins, without the line. Locking the groups first,
    /// in id order as `place` does, keeps every other writer out of them until this load commits.
    private func overCapacity(excluding rejected: Set<Int>) throws -> [Diagnostic] {
        if locksGroups {
            try connection.query("""
                select g.id from community_groups g where g.code in (select s."group" from stage s)
                order by g.id for no key update
                """)
        }
        let ending = KindCatalog.membershipEnd, current = ending.isCurrent(over: "m")
        let rows = try connection.query("""
            with incoming as (
                select s.line, g.id as group_id, g.code, g.capacity,
                       row_number() over (partition by g.id order by s.line) as rank
                from stage s join community_groups g on g.code = s."group" join people p on lower(p.email) = s.email
                where g.capacity is not null and s.line <> all(\(Array(rejected))::int[])
                and \(unescaped: ending.isCurrent(over: "s"))
                and not exists (select 1 from memberships m where m.group_id = g.id and m.person_id = p.id
                                and \(unescaped: current))
            ), members as (
                select i.group_id, count(*) as members from (select distinct group_id from incoming) i
                join memberships m on m.group_id = i.group_id and \(unescaped: current) group by i.group_id
            )
            select i.line, i.code, i.capacity, coalesce(c.members, 0)
            from incoming i left join members c on c.group_id = i.group_id
            where i.rank + coalesce(c.members, 0) > i.capacity
            order by i.line
            """).rows
        return try rows.map { row in
            let (line, group, capacity, members) = try row.decode((Int, String, Int, Int).self)
            return diagnostic(line, column: "group", code: .overCapacity,
                       message: "group \"\(group)\" is full: capacity \(capacity), \(members) members now and earlier rows of this file fill it",
                       hint: "raise the group's capacity in groups.csv or place the student in another group")
        }
    }
}
