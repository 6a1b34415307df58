import PostgresClient

/// The rows that add people (an import's new students, walk-ins and passengers, `place`'s new
/// students) and that are probably someone already: a person known, or another new row of the same
/// file. Each row gets its strongest match at the default score (`PersonMatch`). A bulk load (more
/// than `limit` new people) is not compared: its first row says so.
struct NewPeopleMatches {
    /// Whom a new row probably is: a person known (their email, as the warning has always shown it), or
    /// an earlier row of the file.
    enum Other: Sendable, Equatable {
        case known(email: String, name: String)
        case row(line: Int, name: String)
        /// Nobody: the run adds more new people than the door compares (`limit`), so none was compared.
        case notCompared(newPeople: Int)
    }

    /// More new people than this in one run are a bulk load: they are not compared at the door (the
    /// whole list is, and each new row with it), and one warning says to run `people duplicates`.
    static let limit = 5_000

    /// A new row, and whom it probably is.
    struct Match: Sendable {
        let line: Int
        let other: Other
        let score: Int
        let reasons: String
        /// How many more records the row probably is, each scoring less (or the same, named later).
        var othersAlike = 0

        /// The warning's text.
        var message: String {
            switch other {
            case .known(let email, let name):
                "probably the same person as \(email) (\(name)): \(reasons) (score \(score))\(alsoAlike)"
            case .row(let line, let name):
                "probably the same person as line \(line) (\(name)): \(reasons) (score \(score))\(alsoAlike)"
            case .notCompared(let count):
                "this run adds \(count) new people, more than the \(NewPeopleMatches.limit) compared as they come: "
                    + "none was compared with the people known or with each other"
            }
        }

        /// The other records it probably is, counted, never left out without a word.
        private var alsoAlike: String {
            othersAlike == 0 ? "" : "; \(othersAlike) other record\(othersAlike == 1 ? "" : "s") score \(PersonMatch.defaultMinimumScore) "
                + "or more too (crubatch people duplicates lists them)"
        }

        /// What to do about it.
        var hint: String {
            switch other {
            case .known: "use their email to update them, or merge the two afterwards with crubatch people merge"
            case .row: "keep one of the two rows, or merge the two afterwards with crubatch people merge"
            case .notCompared: "list the probable duplicates after the load with crubatch people duplicates"
            }
        }

        /// Whether it names someone the row probably is (the others say what was not compared).
        var isMatch: Bool {
            if case .notCompared = other { return false }
            return true
        }
    }

    let connection: PostgresConnection

    /// The matches of the new rows `rows` gives (`line, email, first_name, last_name, phone, sex, campus`,
    /// names not null), by line. `counted`: a query selecting how many rows `rows` gives and their
    /// first line (0 for none), when it has a cheaper way to know than reading them.
    func matches(of rows: SQLFragment, counted: SQLFragment? = nil) throws -> [Match] {
        // Counted, not looked for with `exists`: see docs/ARCHITECTURE.md ("Speed").
        let count = counted ?? "select count(*), coalesce(min(n.line), 0) from (\(rows)) n"
        let (new, firstLine, anyoneKnown) = try connection.query("""
            select c.*, exists (select 1 from people where forgotten_at is null) from (\(unescaped: count)) c
            """).rows[0].decode((Int, Int, Bool).self)
        guard new > 1 || (new == 1 && anyoneKnown) else { return [] }
        if new > Self.limit {
            return [Match(line: firstLine, other: .notCompared(newPeople: new), score: 0, reasons: "")]
        }
        let pairs = try PersonMatcher(connection: connection)
            .pairs(of: .known(andNew: rows), minimumScore: PersonMatch.defaultMinimumScore).pairs
        // A pair's first id is the lower: a new row's (-line), the later line when both are new.
        var strongest: [Int: PersonMatcher.Pair] = [:]
        var found: [Int: Int] = [:]
        for pair in pairs where pair.aID < 0 {
            let line = -pair.aID
            found[line, default: 0] += 1
            if let kept = strongest[line], (kept.score, -kept.bID) >= (pair.score, -pair.bID) { continue }
            strongest[line] = pair
        }
        let others = Array(Set(strongest.values.map(\.bID)))
        var named: [Int: Other] = [:]
        for row in try connection.query("""
            select p.id, p.email, p.first_name || ' ' || p.last_name from people p where p.id = any(\(others.filter { $0 > 0 })::bigint[])
            union all select -n.line, null, n.first_name || ' ' || n.last_name from (\(unescaped: rows)) n
            where n.line = any(\(others.filter { $0 < 0 }.map { -$0 })::int[])
            """).rows {
            let (id, email, name) = try row.decode((Int, String?, String).self)
            named[id] = email.map { .known(email: $0, name: name) } ?? .row(line: -id, name: name)
        }
        return strongest.sorted { $0.key < $1.key }.compactMap { line, pair in
            named[pair.bID].map { Match(line: line, other: $0, score: pair.score, reasons: pair.reasons,
                                        othersAlike: (found[line] ?? 1) - 1) }
        }
    }
}
