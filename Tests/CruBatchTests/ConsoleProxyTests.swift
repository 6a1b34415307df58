import CruBatchTestSupport
import Foundation
import Testing

/// The repository's nginx example (scripts/schedule/crubatch-console.nginx.conf) in front of a console
/// started with the systemd unit's own options (crubatch-console.service): what the README tells staff
/// to install, run as shipped but for its ports, certificate and upstream.
@Suite("staff console behind the nginx example")
struct ConsoleProxyTests {
    private let scratch = ScratchDirectory()
    private static let password = "correct horse battery"

    /// The options `ExecStart` of crubatch-console.service gives `crubatch serve`, but its address (the
    /// test's console listens on a free port) and with the test's folder.
    private func unitOptions() throws -> [String] {
        let unit = try String(contentsOfFile: TestEnvironment.root.appendingPathComponent("scripts/schedule/crubatch-console.service").path,
                              encoding: .utf8)
        let start = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        var options = start.split(separator: " ").drop { $0 != "serve" }.dropFirst().map(String.init)
        let folder = try #require(options.firstIndex(of: "--work-folder"))
        options[folder + 1] = try scratch.folder("work")
        let listen = try #require(options.firstIndex(of: "--listen"))
        options.removeSubrange(listen...listen + 1)
        #expect(options.contains("--secure-cookies") && options.contains("--behind-proxy"))
        return options
    }

    /// A database with an admin account, a console started as the unit starts it, nginx in front, and
    /// a browser that trusts nginx's certificate and reaches the console through HTTPS from 127.0.0.2,
    /// so that its address is not the one nginx itself connects from.
    /// Keep the whole tuple: the console and nginx stop when their values go.
    private func proxied() throws -> (database: TestDatabase, console: ConsoleClient, nginx: NginxProxy, browser: ConsoleClient) {
        let database = try TestDatabase(importing: "central-coast")
        #expect(try ConsoleClient.addAccount(database, "admin@cru.org", password: Self.password, ["--role", "admin"]).status == 0)
        let console = try ConsoleClient(serving: database, arguments: try unitOptions())
        let nginx = try NginxProxy(upstream: console.serverAddress)
        let browser = try ConsoleClient(at: nginx.httpsBase, sameServerAs: console,
                                        curlOptions: ["--cacert", nginx.certificate.certificate, "--interface", "127.0.0.2"])
        return (database, console, nginx, browser)
    }

    @Test("HTTP is sent to HTTPS; through HTTPS sign-in works with Secure cookies and HSTS; an upload previews")
    func signInThroughTheProxy() throws {
        let (database, console, nginx, browser) = try proxied()

        let plain = try ConsoleClient(at: nginx.httpBase, sameServerAs: console, curlOptions: [])
        let redirected = try plain.get("/runs?x=1")
        #expect(redirected.status == 301 && redirected.header("location") == "https://127.0.0.1/runs?x=1", "\(redirected.headers)")

        let anonymous = try browser.get("/runs")
        #expect(anonymous.status == 303 && anonymous.header("location") == "/login")
        #expect(anonymous.header("strict-transport-security") == "max-age=31536000")
        let signedIn = try browser.signIn("admin@cru.org", Self.password)
        #expect(signedIn.status == 303 && signedIn.header("location") == "/runs", "\(signedIn.status) \(signedIn.body)")
        let cookies = signedIn.headers["set-cookie"] ?? []
        #expect(!cookies.isEmpty && cookies.allSatisfy { $0.contains("Secure") && $0.contains("HttpOnly") }, "\(cookies)")
        let runs = try browser.get("/runs")
        #expect(runs.status == 200 && runs.body.contains("central-coast"))
        // The session records the browser's address, which only nginx's X-Forwarded-For tells the console.
        #expect(try database.connect().query("select address from staff_sessions").texts == [["127.0.0.2"]])
        // The jar keeps the session for HTTPS only.
        #expect(browser.cookieIsSecure("crubatch_session"))

        // An upload streams through nginx to the console and is previewed.
        let sheet = try scratch.writeFile("one.csv", "email,first_name,last_name,campus\nnia.new@calpoly.edu,Nia,New,calpoly\n")
        let form = try browser.get("/import")
        let preview = try browser.upload("/import", fields: [("csrf", ConsoleClient.csrf(in: form.body) ?? ""), ("kind", "students")], file: sheet)
        #expect(preview.status == 303 || preview.status == 200, "\(preview.status) \(preview.body)")
        #expect(try database.count("select count(*) from staff_previews") == 1)
    }

    @Test("nginx refuses an upload over its client_max_body_size (the console's own limit) before the console reads it")
    func uploadLimit() throws {
        let proxy = try proxied()
        try proxy.browser.signIn("admin@cru.org", Self.password)
        let big = try scratch.folder() + "/big.csv"
        var sheet = Data("email,first_name,last_name,campus\n".utf8)
        let row = Data("someone.long.name@calpoly.edu,Someone,Longname,calpoly\n".utf8)
        while sheet.count <= 21 * 1024 * 1024 { sheet.append(row) }
        try sheet.write(to: URL(fileURLWithPath: big))
        let refused = try proxy.browser.upload("/import", fields: [("csrf", try proxy.browser.csrf()), ("kind", "students")], file: big)
        #expect(refused.status == 413 && refused.body.contains("nginx"), "\(refused.status)")
        #expect(try proxy.database.count("select count(*) from staff_previews") == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: try scratch.folder("work")).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("a browser cannot forge its address past nginx: failed sign-ins are slowed by the address nginx saw it come from")
    func forgedForwardedFor() throws {
        let proxy = try proxied()
        var statuses: [Int] = []
        for attempt in 1...6 {
            // A new unknown account and a new forged address each time: only the browser's address repeats.
            let form = try proxy.browser.get("/login")
            let reply = try proxy.browser.post("/login", [("csrf", ConsoleClient.csrf(in: form.body) ?? ""), ("email", "guess\(attempt)@cru.org"),
                                                    ("password", "wrong password \(attempt)")],
                                         headers: ["X-Forwarded-For: 10.0.0.\(attempt)"])
            statuses.append(reply.status)
        }
        #expect(statuses.last == 429, "\(statuses)")
        #expect(try proxy.database.connect().query("select distinct address from staff_sign_in_failures").texts == [["127.0.0.2"]])
    }
}
