import CSVStream
import PostgresClient

/// The checks about people: an email that `people merge` kept as an alias is read as the email of the
/// person it now belongs to (a people row's own email, or a cell naming a person: a membership's
/// student, a ride's driver), and a row that adds a person (a student or leader, a walk-in, a
/// passenger) who is probably someone already known, or another new row of the file (`PersonMatch`),
/// is a `possible-duplicate`: a warning naming the other person's email (or line) and why, or with
/// `--on-duplicate reject` an error for that row.
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

    /// A `possible-duplicate` per staged row that adds a person who is probably someone already: a person
    /// known, or another row of the file that adds one (`NewPeopleMatches`), with the strongest match's
    /// email (or line), score and reasons.
    func possibleDuplicates() throws -> [Diagnostic] {
        guard let (rows, count, column) = newPeople else { return [] }
        return try NewPeopleMatches(connection: connection).matches(of: rows, counted: count).map { match in
            diagnostic(match.line, column: column, code: .possibleDuplicate, severity: match.isMatch ? onDuplicate : .warning,
                       message: match.message,
                       hint: match.hint)
        }
    }

    /// The staged rows that add a person, as `NewPeopleMatches` reads them, the query counting them,
    /// and the column their warning points at: a new person of a file of people; a walk-in crubatch
    /// does not know (by the key its name and phone make, `identifyWalkIns`); a passenger a ride
    /// request adds. Nil when the kind adds no one, or the file lacks the names.
    private var newPeople: (rows: SQLFragment, count: SQLFragment, column: String)? {
        func cell(_ name: String) -> SQLFragment { isPresent(name) ? "s.\(identifier: name)" : "null" }
        let adding = spec.references.first { $0.reference.addsPeople }?.column.name
        let email: String, column: String, campus: SQLFragment, walkInsOnly: SQLFragment
        if holdsPeople {
            (email, column, campus, walkInsOnly) = ("email", "email", cell("campus"), "")
        } else if let walkIns = spec.walkIns {
            (email, column, campus) = (walkIns.key, "first_name", walkIns.campus)
            walkInsOnly = "and s.\(identifier: walkIns.key) like \(literal: "%@" + WalkIns.domain)"
        } else if let adding {
            (email, column, campus, walkInsOnly) = (adding, adding, "null", "")
        } else {
            return nil
        }
        guard isPresent(email), isPresent("first_name"), isPresent("last_name") else { return nil }
        let key = SQLFragment(identifier: email)
        let newRows: SQLFragment = """
            from stage s where s.\(key) is not null and s.first_name is not null and s.last_name is not null \(walkInsOnly)
            and not exists (select 1 from people p where lower(p.email) = s.\(key))
            """
        // Each key's first row. They are counted by hashing the keys: sorting every new row, as the
        // rows' `distinct on` does, took 3.0 s of a first load of a million students (1.4 s now).
        return ("""
            select distinct on (s.\(key)) s.line, s.\(key) as email, s.first_name, s.last_name, \(cell("phone"))::text as phone,
                   \(cell("sex"))::text as sex, \(campus)::text as campus
            \(newRows) order by s.\(key), s.line
            """, """
            select count(*), coalesce(min(n.line), 0) from (select min(s.line) as line \(newRows) group by s.\(key)) n
            """, column)
    }
}
