import CSVStream
import PostgresClient

/// How an import finds and adds the walk-ins of a file (`WalkIns`), around the other checks.
extension DatabaseChecks {
    /// Rows that name no one by key: each lacking a detail a walk-in must give is reported; the
    /// others get the key of the person with their phone and name, else the key their details make. A
    /// key in the walk-ins' domain that a file gives is made again from the row's details, so a
    /// walk-in's row exported and read back finds the same person. Runs before the duplicate check,
    /// which then sees a walk-in listed twice.
    func identifyWalkIns(_ walkIns: WalkIns) throws -> [Diagnostic] {
        let key = SQLFragment(identifier: walkIns.key)
        let reference = spec.columns.first { $0.name == walkIns.key }?.reference
        let required = reference.map { spec.details(of: $0).filter(\.detail.requiredWhenNew).map(\.column.name) } ?? []
        try connection.execute("update stage s set \(unescaped: key) = null where s.\(unescaped: key) like \("%@" + WalkIns.domain)")
        var found: [Diagnostic] = []
        for name in required {
            let given: SQLFragment = isPresent(name) ? "s.\(identifier: name) is null" : "true"
            found += try connection.query("""
                select s.line from stage s where s.\(unescaped: key) is null and \(unescaped: given) order by s.line
                """).rows.map { row in
                diagnostic(try row.decode(Int.self, 0), column: name, code: .missingValue,
                           message: "\(name) is required for a walk-in (a row without \(walkIns.key))",
                           hint: "give the \(walkIns.key), or the \(required.joined(separator: ", ")) "
                               + "of someone who came without one")
            }
        }
        guard required.allSatisfy(isPresent) else { return found }
        // One join with people (by hash, whatever the number of walk-ins), the oldest such person first.
        try connection.execute("""
            update stage s set \(unescaped: key) = coalesce(k.known, \(unescaped: WalkIns.key(over: "s")))
            from (select w.line, (array_agg(lower(p.email) order by p.id) filter (where p.id is not null))[1] as known
                  from stage w left join people p on p.phone = w.phone and lower(p.first_name) = lower(w.first_name)
                       and lower(p.last_name) = lower(w.last_name) and p.forgotten_at is null
                  where w.\(unescaped: key) is null group by w.line) k
            where k.line = s.line and not s.line = any(\(found.map(\.line))::int[])
            """)
        return found
    }
}

extension WalkIns {
    /// Adds the staged walk-ins crubatch does not know yet as students, through the students kind's
    /// staging and merge (`KindCatalog.walkInStudents`), each once; selects how many were added. The
    /// kind's own stage is set aside meanwhile.
    func addPeople(on connection: PostgresConnection) throws -> Int {
        let spec = KindCatalog.walkInStudents
        let names = spec.columns.map { SQLFragment(identifier: $0.name) }
        let values = spec.columns.map { $0.name == "campus" ? campus : "s.\(identifier: $0.name)" }
        let key = SQLFragment(identifier: self.key)
        try connection.execute("alter table stage rename to walk_in_rows")
        try connection.execute(StagingEncoder(spec: spec).createTable)
        try connection.execute("""
            insert into stage (line, \(unescaped: SQLFragment(joining: names, separator: ", ")))
            select distinct on (s.\(unescaped: key)) s.line, \(unescaped: SQLFragment(joining: values, separator: ", "))
            from walk_in_rows s where s.\(unescaped: key) like \("%@" + Self.domain) order by s.\(unescaped: key), s.line
            """)
        let added = try connection.query(MergeSQL(spec: spec, blank: .keep).insert(recording: false))
            .scalar(Int.self)
        try connection.execute("drop table stage")
        try connection.execute("alter table walk_in_rows rename to stage")
        return added
    }
}
