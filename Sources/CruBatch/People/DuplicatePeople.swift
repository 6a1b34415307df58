import CSVStream
import PostgresClient

/// `crubatch people duplicates`: the pairs of people who are probably the same person, strongest
/// first, each with its score and reasons (`PersonMatch`). Everything is done in one query; the
/// person kept is the one known first (the lower id), which a reviewer may swap before `people
/// merge --from` reads the CSV back.
public struct DuplicatePeople {
    /// One side of a pair.
    public struct Person: Sendable, Encodable, Equatable {
        public let email: String
        public let name: String
    }

    /// Two people who are probably one.
    public struct Pair: Sendable, Encodable, Equatable {
        public let score: Int
        public let keep: Person
        public let drop: Person
        public let reasons: String
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The pairs scoring at least `minimumScore`, strongest first (then by the kept person's email).
    public func find(minimumScore: Int = PersonMatch.defaultMinimumScore) throws -> DuplicatesReport {
        try Migrator(connection: connection).requireCurrent()
        let people: SQLFragment = """
            select p.id, p.email, p.first_name, p.last_name, p.phone, p.sex, c.code as campus
            from people p left join campuses c on c.id = p.campus_id where p.forgotten_at is null
            """
        let names = PersonMatch.comparesNames(minimumScore: minimumScore)
        // Sorting and hashing every candidate pair stays in memory.
        try connection.execute("set work_mem = '128MB'")
        for statement in PersonMatch.keyTables(left: people, right: nil, names: names) {
            try connection.execute(PostgresQuery(statement))
        }
        defer { try? connection.execute(PostgresQuery(PersonMatch.dropTables)) }
        let rows = try connection.query("""
            select k.email, k.first_name || ' ' || k.last_name, d.email, d.first_name || ' ' || d.last_name,
                   p.score, p.reasons
            from (\(unescaped: PersonMatch.scoredPairs(sameSide: true, names: names))) p
            join people k on k.id = p.a_id join people d on d.id = p.b_id
            where p.score >= \(minimumScore)
            order by p.score desc, k.email, d.email
            """).rows
        let pairs = try rows.map { row in
            let (keep, keepName, drop, dropName, score, reasons) = try row.decode((String, String, String, String, Int, String).self)
            return Pair(score: score, keep: Person(email: keep, name: keepName), drop: Person(email: drop, name: dropName),
                        reasons: reasons)
        }
        return DuplicatesReport(pairs: pairs, minimumScore: minimumScore)
    }
}

/// What `people duplicates` found: a table for people, CSV for review and `people merge --from`,
/// or JSON.
public struct DuplicatesReport: Sendable, CommandReport {
    public let pairs: [DuplicatePeople.Pair]
    public let minimumScore: Int

    /// The CSV header, which `people merge --from` reads back.
    public static let csvHeader = ["score", "keep_email", "keep_name", "drop_email", "drop_name", "reasons"]

    private enum CodingKeys: String, CodingKey {
        case pairs, minimumScore = "min_score"
    }

    public var text: String {
        guard !pairs.isEmpty else { return "no pair of people scores \(minimumScore) or more" }
        var table = TextTable(headers: ["score", "keep", "drop", "reasons"], alignments: [.right, .left, .left, .left],
                              freeLastColumn: true)
        for pair in pairs {
            table.append([String(pair.score), "\(pair.keep.name) <\(pair.keep.email)>",
                          "\(pair.drop.name) <\(pair.drop.email)>", pair.reasons])
        }
        return table.text + "\n\(pairs.count) pair\(pairs.count == 1 ? "" : "s") scoring \(minimumScore) or more"
    }

    /// The pairs as CSV, header first, with spreadsheet formulas neutralised.
    public var csv: String {
        let writer = CSVWriter(neutralizeFormulas: true)
        return ([writer.line(Self.csvHeader)] + pairs.map { pair in
            writer.line([String(pair.score), pair.keep.email, pair.keep.name, pair.drop.email, pair.drop.name, pair.reasons])
        }).joined()
    }
}
