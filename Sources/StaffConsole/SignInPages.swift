import CruBatch
import Hummingbird

/// `/login` and `/logout`. The sign-in form carries a token that must match a cookie set with the form
/// (so another site cannot sign a browser in); a successful sign-in always makes a new session id.
struct SignInPages {
    let pool: ConnectionPool
    let configuration: ConsoleServer.Configuration

    private struct SignInForm: Decodable {
        let email: String?
        let password: String?
        let csrf: String?
    }

    func add(to router: Router<ConsoleContext>) {
        router.get("/login") { request, _ in form(message: nil, status: .ok, keeping: request) }
        router.post("/login") { request, context in try await signIn(request, context: context) }
        router.post("/logout") { request, context in try await signOut(request, context: context) }
    }

    /// The sign-in form. Its token is the browser's sign-in cookie when it has one: a second tab, or a
    /// browser fetching its icon, must not change the token under a form already shown.
    private func form(message: String?, status: HTTPResponse.Status, keeping request: Request? = nil) -> Response {
        let kept = request?.cookies[ConsoleServer.signInCookie]?.value
        let token = kept.flatMap { $0.count == 64 && $0.allSatisfy(\.isHexDigit) ? $0 : nil } ?? StaffSessions.randomHex()
        let note = message.map { "<p class=\"error\">\(Escaped($0))</p>" } ?? ""
        var response = Page(title: "Sign in", body: """
            \(note)
            <form method="post" action="/login">
            <input type="hidden" name="csrf" value="\(token)">
            <p><label>Email <input type="email" name="email" autocomplete="username" required></label></p>
            <p><label>Password <input type="password" name="password" autocomplete="current-password" required></label></p>
            <p><button>Sign in</button></p>
            </form>
            """, status: status).response()
        response.setCookie(Cookie(name: ConsoleServer.signInCookie, value: token, path: "/login",
                                  secure: configuration.secureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    private func signIn(_ request: Request, context: ConsoleContext) async throws -> Response {
        let fields = try await request.decode(as: SignInForm.self, context: context)
        guard let expected = request.cookies[ConsoleServer.signInCookie]?.value,
              RequireSession.same(fields.csrf, expected) else { throw HTTPError(.forbidden) }
        let email = fields.email ?? "", password = fields.password ?? ""
        let (address, idle) = (context.clientAddress(of: request, behindProxy: configuration.behindProxy), configuration.idleMinutes)
        let outcome = try await pool.withConnection { connection in
            try StaffSessions(connection: connection, idleMinutes: idle).signIn(email: email, password: password, address: address)
        }
        switch outcome {
        case .refused:
            return form(message: "That email and password do not match an account.", status: .unauthorized, keeping: request)
        case .slowed(let seconds):
            var response = form(message: "Too many failed sign-ins. Try again in \(seconds) seconds.", status: .tooManyRequests,
                                keeping: request)
            response.headers[.retryAfter] = String(seconds)
            return response
        case .signedIn(let token, _):
            var response = Response.redirect(to: "/runs")
            response.setCookie(ConsoleServer(configuration: configuration).sessionCookie(token))
            return response
        }
    }

    private func signOut(_ request: Request, context: ConsoleContext) async throws -> Response {
        guard let token = request.cookies[ConsoleServer.sessionCookie]?.value else { return .redirect(to: "/login") }
        // Signing out needs the session's CSRF token, as every other POST does.
        var request = request
        _ = try await request.collectBody(upTo: context.maxUploadSize)
        let csrf = try await request.decode(as: CSRFForm.self, context: context).csrf
        let idle = configuration.idleMinutes
        // nil: no live session to end; false: the token did not match.
        let ended: Bool? = try await pool.withConnection { connection in
            let sessions = StaffSessions(connection: connection, idleMinutes: idle)
            guard let session = try sessions.session(token: token) else { return nil }
            guard RequireSession.same(csrf, session.csrf) else { return false }
            try sessions.signOut(token: token)
            return true
        }
        if ended == false { throw HTTPError(.forbidden) }
        var response = Response.redirect(to: "/login")
        response.setCookie(ConsoleServer(configuration: configuration).sessionCookie(nil))
        return response
    }
}
