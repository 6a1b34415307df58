import CruBatch
import Foundation
import Hummingbird
import NIOCore

/// `/nightly`: the folders `nightly` wrote, each dated export with its files and their row counts, and
/// the files to download. The rosters hold every campus's people, so this is an admin's page.
struct NightlyPages {
    let pool: ConnectionPool

    func add(to router: Router<ConsoleContext>) {
        router.get("/nightly") { _, context in try await list(context: context) }
        router.get("/nightly/:folder/:date/**") { request, context in try await download(request, context: context) }
    }

    private func folders(_ context: ConsoleContext) async throws -> (ConsoleSession, [NightlyFolders.Folder]) {
        let session = try context.signedIn()
        guard session.account.role == .admin else { throw HTTPError(.forbidden) }
        return (session, try await pool.withConnection { connection in try NightlyFolders(connection: connection).list() })
    }

    private func list(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        guard session.account.role == .admin else {
            return Page(title: "Nightly", body: "<p>The nightly files hold every campus's people: an admin's page.</p>")
                .response(signedIn: session)
        }
        let (_, folders) = try await folders(context)
        let sections = folders.enumerated().map { index, folder in
            let exports = folder.dates.prefix(7).map { date -> String in
                guard let manifest = NightlyFolders.manifest(folder: folder, date: date) else { return "" }
                let files = manifest.files.map { file in
                    // The name as a path of the link (a space, `#` or `?` in it encoded), read back by `download`.
                    let link = file.file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file.file
                    return "<li><a href=\"/nightly/\(index)/\(date)/\(Escaped(link))\">\(Escaped(file.file))</a> (\(file.rows) rows)</li>"
                }
                let skipped = manifest.errors.map { "<li class=\"error\">\(Escaped($0.file ?? "")) \(Escaped($0.row ?? "")): \(Escaped($0.error))</li>" }
                return "<h3>\(date)</h3><ul>\((files + skipped).joined())</ul>"
            }
            return "<h2>\(Escaped(folder.path))</h2><p>Last written \(Escaped(folder.lastWritten)) UTC.</p>\(exports.joined())"
        }
        return Page(title: "Nightly", body: sections.isEmpty ? "<p>No nightly export yet.</p>" : sections.joined())
            .response(signedIn: session)
    }

    private func download(_ request: Request, context: ConsoleContext) async throws -> Response {
        let (_, folders) = try await folders(context)
        guard let index = context.parameters.get("folder", as: Int.self), folders.indices.contains(index),
              let date = context.parameters.get("date"),
              let name = context.parameters.getCatchAll().joined(separator: "/").removingPercentEncoding,
              let path = NightlyFolders.file(folder: folders[index], date: date, name: name),
              let data = FileManager.default.contents(atPath: path) else { throw HTTPError(.notFound) }
        var headers = HTTPFields()
        headers[.contentType] = name.hasSuffix(".xlsx") ? "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            : name.hasSuffix(".ics") ? "text/calendar" : name.hasSuffix(".json") ? "application/json" : "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\((name as NSString).lastPathComponent)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
