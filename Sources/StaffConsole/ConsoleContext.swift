import CruBatch
import HTTPTypes
import Hummingbird
import NIOCore

/// A signed-in request's session (the token is the cookie's, kept to sign out).
struct ConsoleSession: Sendable {
    let token: String
    let account: StaffAccount
    let csrf: String
}

/// What a console request carries besides the request: the caller's address and, once the session
/// middleware has found it, the session.
struct ConsoleContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address (`clientAddress` is what failed sign-ins are counted by).
    let address: String
    var session: ConsoleSession?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        address = source.channel.remoteAddress?.ipAddress ?? "unknown"
        session = nil
    }

    /// The browser's address: the peer's, or behind a proxy on this machine the last hop the proxy
    /// added to `X-Forwarded-For`.
    func clientAddress(of request: Request, behindProxy: Bool) -> String {
        guard behindProxy, address == "127.0.0.1" || address == "::1",
              let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
              let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        else { return address }
        return last
    }

    /// Forms only: a sign-in, a CSRF token, a button's choice.
    var maxUploadSize: Int { 64 * 1024 }
    var requestDecoder: URLEncodedFormDecoder { .init() }

    /// The session, which every route behind the session middleware has.
    func signedIn() throws -> ConsoleSession {
        guard let session else { throw HTTPError(.unauthorized) }
        return session
    }
}

/// Lets through only requests with a live session: any other goes to `/login` and sees nothing (the
/// sign-in form and signing out check their own tokens). A POST must carry the session's CSRF token in
/// its form field `csrf`, or it is refused (403) before anything reads its form.
struct RequireSession: RouterMiddleware {
    typealias Context = ConsoleContext
    let pool: ConnectionPool
    let idleMinutes: Int

    func handle(_ request: Request, context: ConsoleContext,
                next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/login" || request.uri.path == "/logout" { return try await next(request, context) }
        guard let token = request.cookies[ConsoleServer.sessionCookie]?.value,
              let found = try await pool.withConnection({ [idleMinutes] connection in
                  try StaffSessions(connection: connection, idleMinutes: idleMinutes).session(token: token)
              }) else {
            return .redirect(to: "/login")
        }
        var context = context
        context.session = ConsoleSession(token: token, account: found.account, csrf: found.csrf)
        var request = request
        // An upload carries its token as a part of its form, which the upload's route checks before it
        // uses anything it read.
        if request.method != .get, request.method != .head,
           request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") != true {
            // Kept on the request, so the route decodes its own fields from the same bytes.
            _ = try await request.collectBody(upTo: context.maxUploadSize)
            let form = try await request.decode(as: CSRFForm.self, context: context)
            guard Self.same(form.csrf, found.csrf) else { throw HTTPError(.forbidden) }
        }
        return try await next(request, context)
    }

    /// Compares two tokens in time that does not depend on where they differ.
    static func same(_ a: String?, _ b: String) -> Bool {
        guard let a, a.utf8.count == b.utf8.count else { return false }
        return zip(a.utf8, b.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The CSRF token of any form the console posts.
struct CSRFForm: Decodable {
    let csrf: String?
}
