import CruBatch
import Foundation
import Hummingbird
import NIOCore

/// `/import`: choose a kind and a file, see the dry run's preview (its findings, the HTML report with
/// the bad cells marked, the rejects workbook), then Apply it, which loads exactly what was previewed
/// or previews again when the file or the data changed. Undo is on the run's page.
struct ImportPages {
    let pool: ConnectionPool
    let configuration: ConsoleServer.Configuration

    func add(to router: Router<ConsoleContext>) {
        router.get("/import") { _, context in try form(context: context) }
        router.post("/import") { request, context in try await upload(request, context: context) }
        router.post("/import/:id/apply") { _, context in try await apply(context: context) }
        router.get("/import/:id/report") { _, context in try await download(context: context, rejects: false) }
        router.get("/import/:id/rejects.xlsx") { _, context in try await download(context: context, rejects: true) }
        router.post("/runs/:id/undo") { _, context in try await undo(context: context) }
    }

    private func kinds(for account: StaffAccount) -> [Kind] {
        Kind.allCases.filter { StaffImports.kindRefusal($0, for: account) == nil }
    }

    private func form(context: ConsoleContext) throws -> Response {
        let session = try context.signedIn()
        guard session.account.role != .viewer else {
            return Page(title: "Import", body: "<p>A viewer account reads only.</p>").response(signedIn: session)
        }
        let options = kinds(for: session.account).map { "<option value=\"\($0.rawValue)\">\($0.rawValue)</option>" }
        return Page(title: "Import", body: """
            <p>Choose what the file holds and the file (.csv, .xlsx or .ics, at most \(configuration.uploadLimit >> 20) MB), or give its link.
            Nothing is written until you have seen the preview and press Apply.</p>
            <form method="post" action="/import" enctype="multipart/form-data">
            <input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <p><label>Kind <select name="kind">\(options.joined())</select></label></p>
            <p><label>File <input type="file" name="file" accept=".csv,.xlsx,.ics,text/csv,text/calendar"></label></p>
            <p><label>or a link <input type="url" name="link" size="60" placeholder="https://docs.google.com/spreadsheets/d/..."></label>
            <br><small>a Google Sheet shared as anyone with the link can view, a calendar feed, or any file's address</small></p>
            <p><button>Preview</button></p>
            </form>
            """).response(signedIn: session)
    }

    private func upload(_ request: Request, context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        let folder = configuration.workFolder
        let (id, path) = try StaffImports.newPreviewFolder(in: folder)
        let form: UploadForm
        do {
            form = try await UploadForm.read(request, limit: configuration.uploadLimit) { name in
                StaffImports.uploadPath(in: folder, id: id, fileName: name)
            }
            guard RequireSession.same(form.fields["csrf"], session.csrf) else { throw HTTPError(.forbidden) }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let link = form.fields["link"]?.trimmingCharacters(in: .whitespaces) ?? ""
        // A file and a link both given: neither is picked over the other without a word.
        if form.fileBytes > 0 && !link.isEmpty {
            try? FileManager.default.removeItem(atPath: path)
            return Page(title: "Import", body: "<p class=\"error\">Give a file or a link, not both.</p><p><a href=\"/import\">Back</a></p>",
                        status: .badRequest).response(signedIn: session)
        }
        let kind = form.fields["kind"].flatMap(Kind.init(rawValue:))
        let refusal = kind.flatMap { StaffImports.kindRefusal($0, for: session.account) }
        guard form.fileBytes > 0 || !link.isEmpty, let kind, refusal == nil else {
            try? FileManager.default.removeItem(atPath: path)
            let message = refusal.map { $0.prefix(1).uppercased() + $0.dropFirst() + "." } ?? "Choose a kind, and a file that is not empty or a link."
            return Page(title: "Import", body: "<p class=\"error\">\(Escaped(message))</p><p><a href=\"/import\">Back</a></p>",
                        status: .badRequest).response(signedIn: session)
        }
        let account = session.account
        let uploaded = form.fileBytes > 0 ? form.fileName : nil
        let fileName = uploaded ?? link
        let preview: StaffImports.Preview
        do {
            preview = try await pool.withConnection(as: account) { connection in
                let imports = StaffImports(connection: connection, account: account, folder: folder)
                // A link is fetched once, here: the preview and Apply read that copy.
                let name = try uploaded ?? imports.download(link, id: id)
                return try imports.preview(id: id, kind: kind, fileName: name)
            }
        } catch let failure as any CommandFailure
                    where failure.exitStatus != .software && (failure.exitStatus != .unavailable || failure.errorCode.hasPrefix("source-")) {
            // A file the import cannot read at all, or a link it cannot fetch, says why, as the command
            // does; nothing was kept. (The database being away is the server's failure, not the file's.)
            try? FileManager.default.removeItem(atPath: path)
            return Page(title: "Preview", body: """
                <p class="error">\(Escaped(failure.commandMessage.replacingOccurrences(
                    of: StaffImports.uploadPath(in: folder, id: id, fileName: fileName), with: fileName)))</p>
                <p>Nothing was written. <a href="/import">Upload another file</a></p>
                """, status: .unprocessableContent).response(signedIn: session)
        }
        return previewPage(preview, session: session, note: nil)
    }

    private func previewPage(_ preview: StaffImports.Preview, session: ConsoleSession, note: String?) -> Response {
        let report = preview.report
        let findings = report.diagnostics.map { diagnostic in
            """
            <tr class="\(diagnostic.severity == .error ? "error" : "")"><td>\(diagnostic.line)</td>\
            <td>\(Escaped(diagnostic.field ?? ""))</td><td>\(Escaped(diagnostic.severity.rawValue))[\(Escaped(diagnostic.code.rawValue))]</td>\
            <td>\(Escaped(diagnostic.message))\(diagnostic.hint.map { "<br><small>\(Escaped($0))</small>" } ?? "")</td></tr>
            """
        }
        let apply = report.errorCount == 0 ? """
            <form method="post" action="/import/\(preview.id)/apply"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <button>Apply</button> (loads exactly this file, as previewed)</form>
            """ : "<p class=\"error\">Fix the rows marked as errors and upload the file again; nothing can be applied while a row is refused.</p>"
        let body = """
            \(note.map { "<p class=\"error\">\(Escaped($0))</p>" } ?? "")
            <p>Preview of <strong>\(Escaped(preview.fileName))</strong> as \(preview.kind.rawValue): nothing has been written.</p>
            <pre>\(Escaped(report.text.replacingOccurrences(of: configuration.workFolder + "/" + preview.id + "/", with: "")))</pre>
            \(findings.isEmpty ? "" : """
            <table><thead><tr><th>Line</th><th>Column</th><th>Finding</th><th>What to do</th></tr></thead><tbody>\(findings.joined(separator: "\n"))</tbody></table>
            """)
            <p><a href="/import/\(preview.id)/report">The full preview, with each change and the bad cells marked</a>\
            \(preview.rejectsPath == nil ? "" : " · <a href=\"/import/\(preview.id)/rejects.xlsx\">the refused rows as a workbook</a>")</p>
            \(apply)
            """
        return Page(title: "Preview", body: body, status: report.errorCount == 0 ? .ok : .unprocessableContent).response(signedIn: session)
    }

    private func previewID(_ context: ConsoleContext) throws -> String {
        // Only a token the console made: never a path.
        guard let id = context.parameters.get("id"), id.count == 64, id.allSatisfy(\.isHexDigit) else { throw HTTPError(.notFound) }
        return id
    }

    private func apply(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        let id = try previewID(context)
        let (account, folder) = (session.account, configuration.workFolder)
        let applied = try await pool.withConnection(as: account) { connection in
            try StaffImports(connection: connection, account: account, folder: folder).apply(id)
        }
        switch applied {
        case nil: throw HTTPError(.notFound)
        case .changed(let preview)?:
            return previewPage(preview, session: session,
                               note: "The file or the data changed since the preview; this is a new preview of it as things stand now.")
        case .loaded(let report, let runID)?:
            let undo = runID.map { """
                <p><a href="/runs/\($0)">Run \($0)</a>: what it changed.</p>
                <form method="post" action="/runs/\($0)/undo"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
                <button>Undo this run</button></form>
                """ } ?? ""
            return Page(title: report.wrote ? "Applied" : "Not applied", body: "<pre>\(Escaped(report.text))</pre>\(undo)",
                        status: report.errorCount == 0 ? .ok : .unprocessableContent).response(signedIn: session)
        }
    }

    private func download(context: ConsoleContext, rejects: Bool) async throws -> Response {
        let session = try context.signedIn()
        let id = try previewID(context)
        let (account, folder) = (session.account, configuration.workFolder)
        let preview = try await pool.withConnection(as: account) { connection in
            try StaffImports(connection: connection, account: account, folder: folder).preview(id)
        }
        guard let preview, let path = rejects ? preview.rejectsPath : preview.reportPath,
              let data = FileManager.default.contents(atPath: path) else { throw HTTPError(.notFound) }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        if rejects {
            headers[.contentType] = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            headers[.contentDisposition] = "attachment; filename=\"rejects.xlsx\""
        } else {
            headers[.contentType] = "text/html; charset=utf-8"
            // The report is a page of crubatch's own, shown with no script and no way out.
            headers[.contentSecurityPolicy] = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func undo(context: ConsoleContext) async throws -> Response {
        let session = try context.signedIn()
        guard let runID = context.parameters.get("id", as: Int.self) else { throw HTTPError(.notFound) }
        guard session.account.role != .viewer else { throw HTTPError(.forbidden) }
        let account = session.account
        let outcome = try await pool.withConnection(as: account) { connection -> (visible: Bool, text: String, undone: Bool) in
            guard let user = try connection.query("select coalesce(os_user, '') from import_runs where id = \(runID)").rows.first
                .map({ try $0.decode(String.self, 0) }), RunPages.visible(user: user, to: account) else { return (false, "", false) }
            do {
                // Later runs building on this one are the report's conflicts: nothing was written then.
                let report = try Undo(connection: connection).run(runID, force: false)
                return (true, report.text, report.undone)
            } catch let failure as any CommandFailure {
                return (true, failure.commandMessage, false)
            }
        }
        guard outcome.visible else { throw HTTPError(.notFound) }
        return Page(title: outcome.undone ? "Run \(runID) undone" : "Run \(runID) not undone",
                    body: "<pre>\(Escaped(outcome.text))</pre><p><a href=\"/runs/\(runID)\">Run \(runID)</a></p>",
                    status: outcome.undone ? .ok : .conflict).response(signedIn: session)
    }
}
