import CruBatch
import Hummingbird

/// `/runs` and `/runs/ID`: the runs an account may see and what one changed, as `crubatch runs` shows
/// them. An admin or a viewer sees every run; a campus account the runs it started itself. A run it
/// may not see is answered as one that does not exist.
struct RunPages {
    let pool: ConnectionPool

    func add(to router: Router<ConsoleContext>) {
        router.get("/runs") { _, context in try await list(context: context) }
        router.get("/runs/:id") { _, context in try await show(context: context) }
    }

    private func list(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        let runs = try await pool.withConnection { connection in try ImportRuns.load(200, from: connection).runs }
            .filter { Self.visible(user: $0.user, to: session.account) }
        let rows = runs.map { run in
            """
            <tr><td><a href="/runs/\(run.id)">\(run.id)</a></td><td>\(Escaped(run.started))</td><td>\(Escaped(run.kind))</td>
            <td>\(Escaped(run.file))</td><td>\(Escaped(run.status))\(run.dryRun ? " (dry run)" : "")</td>
            <td>\(run.read)</td><td>\(run.inserted)</td><td>\(run.updated)</td><td>\(run.archived)</td><td>\(run.rejected)</td>
            <td>\(Escaped(run.user))</td></tr>
            """
        }
        let body = runs.isEmpty ? "<p>No runs yet.</p>" : """
            <table><thead><tr><th>Run</th><th>Started (UTC)</th><th>Kind</th><th>File</th><th>Outcome</th><th>Read</th>
            <th>Added</th><th>Changed</th><th>Archived</th><th>Rejected</th><th>Started by</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Page(title: "Runs", body: body).response(signedIn: session)
    }

    private func show(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        guard let id = context.parameters.get("id", as: Int.self) else { throw HTTPError(.notFound) }
        let details = try await pool.withConnection { connection -> RunDetails? in
            guard try connection.query("select 1 from import_runs where id = \(id)").rows.first != nil else { return nil }
            return try RunDetails.load(id, rows: false, from: connection)
        }
        guard let details, Self.visible(user: details.run.user, to: session.account) else { throw HTTPError(.notFound) }
        let run = details.run
        let undoable = session.account.role != .viewer && run.undone == nil && !run.dryRun && run.status == "succeeded"
        let counts = details.counts.map { "<tr><td>\(Escaped($0.table))</td><td>\(Escaped($0.operation))</td><td>\($0.rows)</td></tr>" }
        let body = """
            <p>\(Escaped(run.kind)) of <strong>\(Escaped(run.file))</strong>, started \(Escaped(run.started)) UTC by
            \(Escaped(run.user)): \(Escaped(run.status))\(run.dryRun ? " (dry run)" : "")\(run.undone.map { ", undone \(Escaped($0))" } ?? "").</p>
            \(counts.isEmpty ? "<p>It changed no rows.</p>" : """
            <table><thead><tr><th>Table</th><th>Change</th><th>Rows</th></tr></thead><tbody>\(counts.joined(separator: "\n"))</tbody></table>
            """)
            \(undoable ? """
            <form method="post" action="/runs/\(run.id)/undo"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <button>Undo this run</button></form>
            """ : "")
            <p><a href="/runs">All runs</a></p>
            """
        return Page(title: "Run \(run.id)", body: body).response(signedIn: session)
    }

    /// Whether `account` may see a run started by `user`.
    static func visible(user: String, to account: StaffAccount) -> Bool {
        account.role != .campus || user == account.runUser
    }
}
