import CruBatch
import Hummingbird
import Logging
import NIOCore

/// The staff console (`crubatch serve`): server-rendered pages over the same domain functions the
/// commands call, for staff signed in with an account of `crubatch staff`.
public struct ConsoleServer: Sendable {
    /// Where and how the console serves.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var databaseURL: String
        /// A session unused this long is over.
        public var idleMinutes: Int
        /// Cookies only over HTTPS: set when a TLS proxy is in front.
        public var secureCookies: Bool
        /// Requests come through a proxy on this machine, which names the browser in `X-Forwarded-For`.
        public var behindProxy: Bool
        /// Where uploads and their previews are kept, a folder per preview.
        public var workFolder: String
        /// The largest upload taken, in bytes.
        public var uploadLimit: Int

        public init(host: String, port: Int, databaseURL: String, workFolder: String, idleMinutes: Int = 480,
                    secureCookies: Bool = false, behindProxy: Bool = false, uploadLimit: Int = 20 << 20) {
            self.host = host
            self.port = port
            self.databaseURL = databaseURL
            self.workFolder = workFolder
            self.idleMinutes = idleMinutes
            self.secureCookies = secureCookies
            self.behindProxy = behindProxy
            self.uploadLimit = uploadLimit
        }
    }

    static let sessionCookie = "crubatch_session"
    static let signInCookie = "crubatch_sign_in"

    let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Serves until SIGINT or SIGTERM; `listening` is told the address once the socket is bound.
    public func run(listening: @escaping @Sendable (String) -> Void) async throws {
        let pool = ConnectionPool(url: configuration.databaseURL)
        var logger = Logger(label: "crubatch serve")
        logger.logLevel = .warning
        let app = Application(
            router: router(pool: pool),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "crubatch"),
            onServerRunning: { [host = configuration.host] channel in
                listening("http://\(host):\(channel.localAddress?.port ?? 0)")
            },
            logger: logger)
        try await app.runService()
    }

    func router(pool: ConnectionPool) -> Router<ConsoleContext> {
        let router = Router(context: ConsoleContext.self)
        router.add(middleware: ErrorPages())
        // Before any route is matched, so an unknown path without a session goes to /login too.
        router.add(middleware: RequireSession(pool: pool, idleMinutes: configuration.idleMinutes))
        SignInPages(pool: pool, configuration: configuration).add(to: router)
        router.get("/") { _, _ in Response.redirect(to: "/runs") }
        RunPages(pool: pool).add(to: router)
        ImportPages(pool: pool, configuration: configuration).add(to: router)
        PeoplePages(pool: pool).add(to: router)
        MessagePages(pool: pool).add(to: router)
        NightlyPages(pool: pool).add(to: router)
        SourcePages(pool: pool).add(to: router)
        return router
    }

    /// The session cookie: HttpOnly, SameSite=Lax, Secure when served over TLS; `nil` clears it.
    func sessionCookie(_ token: String?) -> Cookie {
        Cookie(name: Self.sessionCookie, value: token ?? "", maxAge: token == nil ? 0 : nil, path: "/",
               secure: configuration.secureCookies, httpOnly: true, sameSite: .lax)
    }
}
