import CSVStream
import PostgresClient

/// `crubatch people duplicates`: the pairs of people who are probably the same person, strongest
/// first, each with its score and reasons (`PersonMatch`, run by `PersonMatcher`). The person kept is
/// the one known first (the lower id), which a reviewer may swap before `people merge --from` reads the
/// CSV back.
public struct DuplicatePeople {
    /// One side of a pair.
    public struct Person: Sendable, Encodable, Equatable {
        public let email: String
        public let name: String
    }

    /// Two people who are probably one, and the keys they were compared on.
    public struct Pair: Sendable, Encodable, Equatable {
        public let score: Int
        public let keep: Person
        public let drop: Person
        public let reasons: String
        public let blocks: [String]
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The pairs scoring at least `minimumScore`, strongest first (then by the kept person's email).
    public func find(minimumScore: Int = PersonMatch.defaultMinimumScore) throws -> DuplicatesReport {
        try Migrator(connection: connection).requireCurrent()
        // Sorting and hashing every candidate pair stays in memory.
        try connection.execute("set work_mem = '128MB'")
        let matched = try PersonMatcher(connection: connection).pairs(of: .everyone, minimumScore: minimumScore)
        // Pairs a reviewer said are two people are not proposed again.
        let distinct = Set(try connection.query("select a_id, b_id from people_not_duplicates").rows.map { row in
            let (a, b) = try row.decode((Int, Int).self)
            return [a, b]
        })
        let result = (pairs: matched.pairs.filter { !distinct.contains([$0.aID, $0.bID]) }, prior: matched.prior)
        var people: [Int: Person] = [:]
        for row in try connection.query("""
            select id, email, first_name || ' ' || last_name from people
            where id = any(\(Array(Set(result.pairs.flatMap { [$0.aID, $0.bID] })))::bigint[])
            """).rows {
            let (id, email, name) = try row.decode((Int, String, String).self)
            people[id] = Person(email: email, name: name)
        }
        let pairs = result.pairs.compactMap { pair -> Pair? in
            guard let keep = people[pair.aID], let drop = people[pair.bID] else { return nil }
            return Pair(score: pair.score, keep: keep, drop: drop, reasons: pair.reasons, blocks: pair.blocks.map(\.name))
        }.sorted { ($1.score, $0.keep.email, $0.drop.email) < ($0.score, $1.keep.email, $1.drop.email) }
        return DuplicatesReport(pairs: pairs, minimumScore: minimumScore, prior: result.prior)
    }
}

/// Two people a reviewer said are not one person, remembered so that `people duplicates` and the
/// console do not propose them again.
public struct NotDuplicates {
    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Remembers that the people of `first` and `second` (emails) are two people, as decided by `who`;
    /// false when either email names no one.
    @discardableResult
    public func record(_ first: String, _ second: String, by who: String) throws -> Bool {
        let ids = try connection.query("""
            select id from people where lower(email) in (lower(\(first)), lower(\(second))) order by id
            """).rows.map { try $0.decode(Int.self, 0) }
        guard ids.count == 2 else { return false }
        try connection.execute("""
            insert into people_not_duplicates (a_id, b_id, decided_by) values (\(ids[0]), \(ids[1]), \(who))
            on conflict do nothing
            """)
        return true
    }
}

/// What `people duplicates` found: a table for people, CSV for review and `people merge --from`,
/// or JSON.
public struct DuplicatesReport: Sendable, CommandReport {
    public let pairs: [DuplicatePeople.Pair]
    public let minimumScore: Int
    /// The log-odds (bits) that two records of this list are one person, before their comparisons: a
    /// pair's score is 100 / (1 + 2^-(prior + its reasons' weights)).
    public let prior: Double

    /// The CSV header, which `people merge --from` reads back.
    public static let csvHeader = ["score", "keep_email", "keep_name", "drop_email", "drop_name", "reasons"]

    private enum CodingKeys: String, CodingKey {
        case pairs, minimumScore = "min_score", prior
    }

    public var text: String {
        guard !pairs.isEmpty else { return "no pair of people scores \(minimumScore) or more" }
        var table = TextTable(headers: ["score", "keep", "drop", "reasons"], alignments: [.right, .left, .left, .left],
                              freeLastColumn: true)
        for pair in pairs {
            table.append([String(pair.score), "\(pair.keep.name) <\(pair.keep.email)>",
                          "\(pair.drop.name) <\(pair.drop.email)>", pair.reasons])
        }
        return table.text + "\n\(pairs.count) pair\(pairs.count == 1 ? "" : "s") scoring \(minimumScore) or more; "
            + "the weights are bits added to \((prior * 10).rounded() / 10), the odds of any two people of this list"
    }

    /// The pairs as CSV, header first, with spreadsheet formulas neutralised.
    public var csv: String {
        let writer = CSVWriter(neutralizeFormulas: true)
        return ([writer.line(Self.csvHeader)] + pairs.map { pair in
            writer.line([String(pair.score), pair.keep.email, pair.keep.name, pair.drop.email, pair.drop.name, pair.reasons])
        }).joined()
    }
}
