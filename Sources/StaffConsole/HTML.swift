import CruBatch
import Hummingbird

/// Text made safe to place in HTML, between tags or inside a quoted attribute.
struct Escaped: CustomStringConvertible {
    let description: String

    init(_ text: String) {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        description = out
    }
}

/// A console page: the layout around a body, with the navigation when someone is signed in.
struct Page {
    let title: String
    let body: String
    var status: HTTPResponse.Status = .ok

    /// The page as a response; it is never cached and never framed by another site.
    func response(signedIn session: ConsoleSession? = nil) -> Response {
        let navigation = session.map { session in
            """
            <nav><a href="/import">Import</a> <a href="/runs">Runs</a> <a href="/people">People</a> <a href="/messages">Messages</a> <a href="/nightly">Nightly</a> <a href="/sources">Sources</a>
            <form method="post" action="/logout" class="signout"><input type="hidden" name="csrf" value="\(Escaped(session.csrf))">
            <span>\(Escaped(session.account.email)) (\(session.account.role.rawValue))</span> <button>Sign out</button></form></nav>
            """
        } ?? ""
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Escaped(title)) · crubatch</title>
            <style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse}
            td,th{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left}nav{display:flex;gap:1rem;align-items:center;margin-bottom:1rem}
            .signout{margin-left:auto}.error{color:#a00}</style></head>
            <body>\(navigation)<h1>\(Escaped(title))</h1>
            \(body)
            </body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// Turns every error into an HTML page with its status, and a failure of crubatch's own into a 500
/// that says no more than that.
struct ErrorPages<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return Page(title: "\(error.status.code) \(error.status.reasonPhrase)", body: "", status: error.status).response()
        } catch let failure as any CommandFailure {
            // A command's own message: it names no person and no password.
            context.logger.error("\(request.method) \(request.uri.path) failed: \(failure.commandMessage)")
            return Page(title: "Something went wrong", body: "<p>The request failed; the server's log says more.</p>",
                        status: .internalServerError).response()
        } catch {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(String(describing: type(of: error)))")
            return Page(title: "Something went wrong", body: "<p>The request failed; the server's log says more.</p>",
                        status: .internalServerError).response()
        }
    }
}
