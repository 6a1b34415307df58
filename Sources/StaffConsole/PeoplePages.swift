import CruBatch
import Hummingbird
import Synchronization

/// `/people`: the pairs `people duplicates` proposes, with score and reasons, each with **Merge**
/// (`people merge`, undone from its run's page) and **Not the same person** (remembered, so the pair is
/// not proposed again). A campus account sees and merges only pairs of its campuses' people.
struct PeoplePages {
    let pool: ConnectionPool
    /// The last list found, with the state of the tables it was found in: matching a large list takes
    /// seconds, reading the state a moment.
    private final class Found: Sendable {
        let latest = Mutex<(state: String, pairs: [CampusPair])?>(nil)
    }
    private let found = Found()

    /// A proposed pair and the campus code of each of its people ('' for none).
    struct CampusPair: Sendable {
        let pair: DuplicatePeople.Pair
        let keepCampus: String
        let dropCampus: String

        func visible(to account: StaffAccount) -> Bool {
            account.role != .campus || (account.campuses.contains(keepCampus) && account.campuses.contains(dropCampus))
        }
    }

    private struct PairForm: Decodable {
        let keep: String?
        let drop: String?
    }

    init(pool: ConnectionPool) {
        self.pool = pool
    }

    func add(to router: Router<ConsoleContext>) {
        router.get("/people") { _, context in try await list(context: context) }
        router.post("/people/merge") { request, context in try await decide(request, context: context, merge: true) }
        router.post("/people/distinct") { request, context in try await decide(request, context: context, merge: false) }
    }

    private func pairs() async throws -> [CampusPair] {
        let cached = found.latest.withLock { $0 }
        return try await pool.withConnection { connection in
            let state = try KindTablesState.current(of: .students, on: connection)
                + ":" + String(connection.query("select count(*) from people_not_duplicates").scalar(Int.self))
            if let cached, cached.state == state { return cached.pairs }
            let report = try DuplicatePeople(connection: connection).find()
            let emails = report.pairs.flatMap { [$0.keep.email, $0.drop.email] }
            var campuses: [String: String] = [:]
            for row in try connection.query("""
                select p.email, coalesce(c.code, '') from people p left join campuses c on c.id = p.campus_id
                where p.email = any(\(emails)::text[])
                """).rows {
                let (email, campus) = try row.decode((String, String).self)
                campuses[email] = campus
            }
            let pairs = report.pairs.map {
                CampusPair(pair: $0, keepCampus: campuses[$0.keep.email] ?? "", dropCampus: campuses[$0.drop.email] ?? "")
            }
            found.latest.withLock { $0 = (state, pairs) }
            return pairs
        }
    }

    private func list(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        let shown = try await pairs().filter { $0.visible(to: session.account) }
        let decides = session.account.role != .viewer
        let rows = shown.map { item in
            let pair = item.pair
            let fields = """
                <input type="hidden" name="csrf" value="\(Escaped(session.csrf))"><input type="hidden" name="keep" value="\(Escaped(pair.keep.email))">\
                <input type="hidden" name="drop" value="\(Escaped(pair.drop.email))">
                """
            let buttons = decides ? """
                <form method="post" action="/people/merge">\(fields)<button>Merge</button></form>
                <form method="post" action="/people/distinct">\(fields)<button>Not the same person</button></form>
                """ : ""
            return """
                <tr><td>\(pair.score)</td><td>\(Escaped(pair.keep.name))<br><small>\(Escaped(pair.keep.email))</small></td>
                <td>\(Escaped(pair.drop.name))<br><small>\(Escaped(pair.drop.email))</small></td><td>\(Escaped(pair.reasons))</td>
                <td>\(buttons)</td></tr>
                """
        }
        let body = shown.isEmpty ? "<p>No pairs to review.</p>" : """
            <p>Pairs of records that are probably one person, strongest first. Merge keeps the first and folds the second into it
            (its memberships, ministries, rides and attendance move); Undo on the run's page puts both back.</p>
            <table><thead><tr><th>Score</th><th>Keep</th><th>Merge into it</th><th>Why</th><th></th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Page(title: "People", body: body).response(signedIn: session)
    }

    private func decide(_ request: Request, context: ConsoleContext, merge: Bool) async throws -> Response {
        let session = try context.signedIn()
        guard session.account.role != .viewer else { throw HTTPError(.forbidden) }
        let form = try await request.decode(as: PairForm.self, context: context)
        guard let keep = form.keep, let drop = form.drop,
              let item = try await pairs().first(where: { $0.pair.keep.email == keep && $0.pair.drop.email == drop }),
              item.visible(to: session.account) else { throw HTTPError(.notFound) }
        let account = session.account
        if !merge {
            _ = try await pool.withConnection(as: account) { connection in
                try NotDuplicates(connection: connection).record(keep, drop, by: account.runUser)
            }
            return .redirect(to: "/people")
        }
        let report = try await pool.withConnection(as: account) { connection in
            try PeopleMerge(connection: connection).merge([PeopleMerge.Pair(keep: keep, drop: drop)])
        }
        return Page(title: "Merged", body: """
            <pre>\(Escaped(report.text))</pre>
            <p><a href="/runs/\(report.runID)">Run \(report.runID)</a>: what it changed.</p>
            <form method="post" action="/runs/\(report.runID)/undo"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <button>Undo this run</button></form>
            """).response(signedIn: session)
    }
}
