import CruBatch
import Hummingbird

/// `/sources`: the URLs imports read (Google Sheets, calendar feeds), when each was last fetched and
/// the run that loaded it, and for an admin **Fetch now**, which is `import KIND URL`: loaded only
/// when the content or the tables changed since. A URL stored with its password masked cannot be
/// fetched from here; its scheduled import, which has the password, still can.
struct SourcePages {
    let pool: ConnectionPool

    private struct FetchForm: Decodable {
        let source: Int?
    }

    /// One row of `sources`.
    private struct Source: Sendable {
        let id: Int
        let kind: String
        let url: String
        let fetched: String
        let run: String

        /// A URL stored with its password masked cannot be fetched from here.
        var fetchable: Bool { !url.contains("***") }
    }

    func add(to router: Router<ConsoleContext>) {
        router.get("/sources") { _, context in try await list(context: context, note: nil) }
        router.post("/sources/fetch") { request, context in try await fetch(request, context: context) }
    }

    /// Every source, or the one whose id is `id`.
    private func sources(id: Int? = nil) async throws -> [Source] {
        try await pool.withConnection { connection in
            try connection.query("""
                select s.id, s.kind, s.url, to_char(s.fetched_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'),
                       coalesce('run ' || r.id || ': ' || r.status, 'no run')
                from sources s left join import_runs r on r.id = s.run_id where \(id)::bigint is null or s.id = \(id)
                order by s.kind, s.url
                """).rows.map { row in
                let (id, kind, url, fetched, run) = try row.decode((Int, String, String, String, String).self)
                return Source(id: id, kind: kind, url: url, fetched: fetched, run: run)
            }
        }
    }

    private func list(context: ConsoleContext, note: String?) async throws -> Response {
        let session = try context.signedIn()
        let admin = session.account.role == .admin
        let rows = try await sources().map { source in
            let fetch = admin && source.fetchable ? """
                <form method="post" action="/sources/fetch"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
                <input type="hidden" name="source" value="\(source.id)"><button>Fetch now</button></form>
                """ : ""
            return """
                <tr><td>\(Escaped(source.kind))</td><td>\(Escaped(source.url))</td><td>\(Escaped(source.fetched))</td>
                <td>\(Escaped(source.run))</td><td>\(fetch)</td></tr>
                """
        }
        let body = rows.isEmpty ? "<p>No import has read a URL yet.</p>" : """
            <table><thead><tr><th>Kind</th><th>URL</th><th>Last fetched (UTC)</th><th>Loaded by</th><th></th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Page(title: "Sources", body: "\(note.map { "<pre>\(Escaped($0))</pre>" } ?? "")\(body)").response(signedIn: session)
    }

    private func fetch(_ request: Request, context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        guard session.account.role == .admin else { throw HTTPError(.forbidden) }
        guard let id = try await request.decode(as: FetchForm.self, context: context).source,
              let source = try await sources(id: id).first, source.fetchable,
              let kind = Kind(rawValue: source.kind) else { throw HTTPError(.notFound) }
        let text = try await pool.withConnection(as: session.account) { connection -> String in
            do {
                return try Importer(connection: connection, options: ImportOptions())
                    .run([Importer.Source(kind: kind, path: source.url)]).text
            } catch let failure as any CommandFailure {
                return failure.commandMessage
            }
        }
        return try await list(context: context, note: text)
    }
}
