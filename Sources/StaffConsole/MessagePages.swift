import CruBatch
import Hummingbird

/// `/messages`: the outbox as `crubatch status` counts it, per kind and status; for an admin also
/// the dead messages with their reasons (they name recipients of every campus) and **Requeue**, which
/// is `notify --requeue`.
struct MessagePages {
    let pool: ConnectionPool

    private struct RequeueForm: Decodable {
        let status: String?
    }

    func add(to router: Router<ConsoleContext>) {
        router.get("/messages") { _, context in try await list(context: context, note: nil) }
        router.post("/messages/requeue") { request, context in try await requeue(request, context: context) }
    }

    private func list(context: ConsoleContext, note: String?) async throws -> Response {
        let session = try context.signedIn()
        let status = try await pool.withConnection { connection in try StatusReport.load(from: connection) }
        let statuses = StatusReport.notificationStatuses
        let rows = status.notificationsByKind.keys.sorted().map { kind in
            "<tr><td>\(Escaped(kind))</td>" + statuses.map { "<td>\(status.notificationsByKind[kind]?[$0] ?? 0)</td>" }.joined() + "</tr>"
        }
        let admin = session.account.role == .admin
        let dead = admin && !status.deadNotifications.isEmpty ? """
            <h2>Dead messages</h2><ul>\(status.deadNotifications.map { "<li>\(Escaped($0))</li>" }.joined())</ul>
            """ : ""
        let requeue = admin ? RequeueReport.Status.allCases.map { which in
            """
            <form method="post" action="/messages/requeue"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <input type="hidden" name="status" value="\(which.rawValue)"><button>Requeue the \(which.rawValue) ones</button></form>
            """
        }.joined() : ""
        let table = rows.isEmpty ? "<p>No messages yet.</p>" : """
            <table><thead><tr><th>Kind</th>\(statuses.map { "<th>\(Escaped($0))</th>" }.joined())</tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Page(title: "Messages", body: "\(note.map { "<p>\(Escaped($0))</p>" } ?? "")\(table)\(dead)\(requeue)")
            .response(signedIn: session)
    }

    private func requeue(_ request: Request, context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        guard session.account.role == .admin else { throw HTTPError(.forbidden) }
        guard let which = try await request.decode(as: RequeueForm.self, context: context).status
            .flatMap(RequeueReport.Status.init(rawValue:)) else { throw HTTPError(.badRequest) }
        let report = try await pool.withConnection(as: session.account) { connection in
            try RequeueReport.requeue(which, since: nil, connection: connection)
        }
        return try await list(context: context, note: report.text)
    }
}
