import CSVStream
import PostgresClient

/// The checks about people: an email that `people merge` kept as an alias is read as the email of the
/// person it now belongs to (a people row's own email, or a cell naming a person: a membership's
/// student, a ride's driver), and in a file of people (students, leaders) a new person who is
/// probably someone already known (`PersonMatch`) is a `possible-duplicate`, a warning naming the
/// other person's email and why, or with `--on-duplicate reject` an error for that row.
extension DatabaseChecks {
    /// Whether the kind's rows are people, keyed by email.
    var holdsPeople: Bool { spec.table == PersonalColumns.people && spec.keyColumns == ["email"] }

    /// The staged columns present in the file that name a person by email: a people row's own, and
    /// each single reference to a person.
    var personEmailColumns: [String] {
        ((holdsPeople ? ["email"] : []) + spec.references.filter {
            $0.reference.table == PersonalColumns.people && $0.column.list == nil
        }.map(\.column.name)).filter(isPresent)
    }

    /// Rewrites each staged email that is an alias to the email of its person, so the row updates them
    /// (or names them).
    func followAliases() throws {
        for column in personEmailColumns {
            try connection.query("""
                update stage s set \(identifier: column) = p.email from person_aliases a join people p on p.id = a.person_id
                where lower(s.\(identifier: column)) = a.email
                """)
        }
    }

    /// A `possible-duplicate` per staged row that adds a person who probably is someone already in
    /// the database: the strongest match, with its email, score and reasons.
    func possibleDuplicates() throws -> [Diagnostic] {
        func cell(_ name: String) -> SQLFragment { isPresent(name) ? "s.\(identifier: name)" : "null" }
        let staged: SQLFragment = """
            select s.line as id, s.email, s.first_name, s.last_name, \(cell("phone"))::text as phone, \(cell("sex"))::text as sex,
                   \(cell("campus"))::text as campus
            from stage s where s.first_name is not null and s.last_name is not null
            and not exists (select 1 from people p where p.email = s.email)
            """
        // A first load (or a file of known people only) compares nothing: the keys of every person are
        // not worth computing. The new rows are counted, not looked for with `exists`: a planner
        // without statistics of people guesses that many are new and, to stop at the first, chose
        // to read every person for each staged row until it found none; for a count it hashes them.
        guard try connection.query("""
            select exists (select 1 from people) and (select count(*) from (\(unescaped: staged)) n) > 0
            """).scalar(Bool.self) else {
            return []
        }
        let known: SQLFragment = """
            select p.id, p.email, p.first_name, p.last_name, p.phone, p.sex, c.code as campus
            from people p left join campuses c on c.id = p.campus_id where p.forgotten_at is null
            """
        let names = PersonMatch.comparesNames(minimumScore: PersonMatch.defaultMinimumScore)
        for statement in PersonMatch.keyTables(left: staged, right: known, names: names) {
            try connection.execute(PostgresQuery(statement))
        }
        defer { try? connection.execute(PostgresQuery(PersonMatch.dropTables)) }
        let rows = try connection.query("""
            select distinct on (m.a_id) m.a_id, p.email, p.first_name || ' ' || p.last_name, m.score, m.reasons
            from (\(unescaped: PersonMatch.scoredPairs(sameSide: false, names: names))) m join people p on p.id = m.b_id
            where m.score >= \(PersonMatch.defaultMinimumScore)
            order by m.a_id, m.score desc, p.email
            """).rows
        return try rows.map { row in
            let (line, email, name, score, reasons) = try row.decode((Int, String, String, Int, String).self)
            return diagnostic(line, column: "email", code: .possibleDuplicate, severity: onDuplicate,
                              message: "probably the same person as \(email) (\(name)): \(reasons) (score \(score))",
                              hint: "use their email to update them, or merge the two afterwards with crubatch people merge")
        }
    }
}
