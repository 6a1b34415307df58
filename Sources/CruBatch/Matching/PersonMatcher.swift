import PostgresClient

/// Runs people matching over a list on one connection, in temporary tables it drops again: each
/// person's keys (`PersonKeys`), how the list's names agree (`NameAgreement`), what the model assumes
/// (`MatchPriors`) and what the list says each agreement is worth (`MatchEstimates`), the pairs its
/// blocks find (`MatchBlocks`) and their scores (`PairScores`). Everything is set-based SQL; nothing
/// of a person leaves the database but the pairs found.
struct PersonMatcher {
    /// Two records that are probably one person.
    struct Pair: Sendable {
        let aID: Int
        let bID: Int
        let score: Int
        let reasons: String
        let blocks: [PersonMatch.Block]
    }

    /// The pairs found, and the log-odds (bits) every pair's weights are added to.
    struct Result: Sendable {
        let pairs: [Pair]
        let prior: Double
    }

    let connection: PostgresConnection

    /// The pairs of `rows` that have a new row and score at least `minimumScore`, strongest first.
    func pairs(of rows: PersonMatch.Rows, minimumScore: Int) throws -> Result {
        try Self.plannerSettings.apply(on: connection) {
            defer { try? connection.execute(PostgresQuery(Self.dropTables)) }
            return try matched(rows, minimumScore: minimumScore)
        }
    }

    private func matched(_ rows: PersonMatch.Rows, minimumScore: Int) throws -> Result {
        try run(MatchPriors.statements + PersonKeys.statements(of: rows) + NameAgreement.statements + MatchEstimates.statements)
        // A pair sharing nothing but its names scores at most this (its best case: no email or phone on
        // one side, so neither counts against); the name blocks are worth joining only when the
        // minimum is as low.
        let (namesAlone, prior) = try connection.query("""
            select round(100 / (1 + 2 ^ -(w.prior + w.name_most + greatest(w.sex_same, 0) + greatest(w.campus_same, 0))))::int,
                   w.prior
            from person_match_w w
            """).rows[0].decode((Int, Double).self)
        try run(MatchBlocks.statements(names: minimumScore <= namesAlone, allNew: rows.allNew) + PairScores.statements)
        let pairs = try connection.query(PostgresQuery(PairScores.pairs(minimumScore: minimumScore))).rows.map { row in
            let (a, b, score, reasons, blocks) = try row.decode((Int, Int, Int, String, Int).self)
            return Pair(aID: a, bID: b, score: score, reasons: reasons, blocks: PersonMatch.Block.blocks(in: blocks))
        }
        return Result(pairs: pairs, prior: prior)
    }

    /// How the planner runs these statements, for their length. A just-in-time compilation of these
    /// plans costs more than running them. Every join here is an equality a hash serves: a merge join
    /// would sort the whole list first, and a nested loop (chosen where a temporary table's join is
    /// guessed to give a row or two) scans the inner table once for each of thousands.
    private static let plannerSettings = PlannerSettings([
        ("jit", "off"), ("enable_mergejoin", "off"), ("enable_nestloop", "off"),
    ])

    private func run(_ statements: [SQLFragment]) throws {
        for statement in statements { try connection.execute(PostgresQuery(statement)) }
    }

    static let dropTables: SQLFragment = """
        drop table if exists person_match_rows, person_match_levels, person_match_priors, person_match_given_forms, person_match_surname_forms,
            person_match_keys, person_match_common, person_match_names, person_match_full, person_match_variants, person_match_given,
            person_match_surname, person_match_given_pairs, person_match_surname_pairs, person_match_size,
            person_match_families, person_match_u, person_match_weights, person_match_w, person_match_new, person_match_candidates,
            person_match_handles, person_match_pairs
        """
}
