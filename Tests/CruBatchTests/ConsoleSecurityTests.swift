import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `crubatch staff` and the console's doors (`crubatch serve`), over real HTTP: nothing without a
/// session, no POST without its CSRF token, sign-ins slowed, a new session id at each sign-in, campus
/// accounts kept to their own runs, and every name escaped.
@Suite("staff console security")
struct ConsoleSecurityTests {
    private let scratch = ScratchDirectory()
    private static let adminPassword = "correct horse battery"
    private static let campusPassword = "campus staple 2026"

    /// central-coast imported, an admin and a campus account for calpoly.
    private func database() throws -> TestDatabase {
        let database = try TestDatabase(importing: "central-coast")
        for (email, password, role) in [("admin@cru.org", Self.adminPassword, ["--role", "admin"]),
                                         ("ana@cru.org", Self.campusPassword, ["--role", "campus", "--campus", "calpoly"])] {
            let added = try addAccount(database, email, password, role)
            #expect(added.status == 0, "\(added.stderr)")
        }
        return database
    }

    private func addAccount(_ database: TestDatabase, _ email: String, _ password: String, _ options: [String]) throws -> CommandResult {
        try ConsoleClient.addAccount(database, email, password: password, options)
    }

    @Test("staff add reads the password from a pipe, stores only a bcrypt hash, and refuses what it cannot do")
    func staffCommands() throws {
        let database = try database()
        let hashes = try database.connect().query("select email, role, password_hash from staff_accounts order by email").texts
        #expect(hashes.map { $0[0] } == ["admin@cru.org", "ana@cru.org"])
        #expect(hashes.allSatisfy { $0[2]?.hasPrefix("$2b$11$") == true && $0[2]?.contains("horse") == false })
        let listed = try database.run(["staff", "list"])
        #expect(listed.stdout.contains("ana@cru.org    campus  calpoly   set"), "\(listed.stdout)")

        #expect(try addAccount(database, "short@cru.org", "too short", ["--role", "viewer"]).status == 64)
        #expect(try addAccount(database, "nocampus@cru.org", Self.campusPassword, ["--role", "campus"]).status == 64)
        let unknownCampus = try addAccount(database, "x@cru.org", Self.campusPassword, ["--role", "campus", "--campus", "nowhere"])
        #expect(unknownCampus.status == 1 && unknownCampus.stderr.contains("no campus has the code nowhere"))
        let twice = try addAccount(database, "ADMIN@cru.org", Self.campusPassword, ["--role", "viewer"])
        #expect(twice.status == 1 && twice.stderr.contains("admin@cru.org has an account already"))
        #expect(try database.count("select count(*) from staff_accounts") == 2)
    }

    @Test("without a session every page goes to /login and shows no data")
    func everyPageNeedsASession() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        for path in ["/", "/runs", "/runs/1", "/runs/999", "/people", "/../etc/passwd"] {
            let reply = try browser.get(path)
            #expect(reply.status == 303 && reply.header("location") == "/login", "\(path): \(reply.status)")
            #expect(!reply.body.contains("central-coast"), "\(path)")
        }
        let forged = try browser.post("/logout", [("csrf", "x")])
        #expect(forged.status == 303 && forged.header("location") == "/login")
    }

    @Test("a sign-in makes a new session id each time; the cookie is HttpOnly and SameSite=Lax")
    func signInRotatesTheSession() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        let first = try browser.signIn("Admin@Cru.org", Self.adminPassword)
        #expect(first.status == 303 && first.header("location") == "/runs")
        let cookie = try #require(first.headers["set-cookie"]?.first { $0.hasPrefix("crubatch_session=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && !cookie.contains("Secure"))
        let firstToken = try #require(try browser.cookie("crubatch_session"))
        let runs = try browser.get("/runs")
        #expect(runs.status == 200 && runs.body.contains("fixtures/central-coast/students.csv"))
        try browser.signIn("admin@cru.org", Self.adminPassword)
        let secondToken = try #require(try browser.cookie("crubatch_session"))
        #expect(secondToken != firstToken && secondToken.count == 64)
        // Only the token's SHA-256 is stored.
        #expect(try database.count("select count(*) from staff_sessions where token_sha256 = \(secondToken)") == 0)
        #expect(try database.count("select count(*) from staff_sessions") == 2)
    }

    @Test("a POST without or with a wrong CSRF token is 403 and writes nothing")
    func postsNeedTheirToken() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        // The sign-in form's own token: without it no session is made, even with the right password.
        let noToken = try browser.post("/login", [("email", "admin@cru.org"), ("password", Self.adminPassword)])
        #expect(noToken.status == 403)
        #expect(try database.count("select count(*) from staff_sessions") == 0)

        try browser.signIn("admin@cru.org", Self.adminPassword)
        let page = try browser.get("/runs")
        let csrf = try #require(ConsoleClient.csrf(in: page.body))
        #expect(try browser.post("/logout", []).status == 403)
        #expect(try browser.post("/logout", [("csrf", String(csrf.reversed()))]).status == 403)
        #expect(try browser.get("/runs").status == 200)
        #expect(try database.count("select count(*) from staff_sessions") == 1)

        let signedOut = try browser.post("/logout", [("csrf", csrf)])
        #expect(signedOut.status == 303 && signedOut.header("location") == "/login")
        #expect(try database.count("select count(*) from staff_sessions") == 0)
        #expect(try browser.get("/runs").status == 303)
    }

    @Test("repeated wrong passwords are slowed, per account and per address, and the right one waits too")
    func wrongPasswordsAreSlowed() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        for attempt in 1...5 {
            let wrong = try browser.signIn("admin@cru.org", "wrong password \(attempt)")
            #expect(wrong.status == 401 && wrong.body.contains("do not match an account"))
        }
        let slowed = try browser.signIn("admin@cru.org", Self.adminPassword)
        #expect(slowed.status == 429, "\(slowed.status)")
        #expect(Int(slowed.header("retry-after") ?? "") ?? 0 >= 1)
        #expect(try database.count("select count(*) from staff_sessions") == 0)
        // The same address guessing at another account is slowed too.
        #expect(try browser.signIn("ana@cru.org", Self.campusPassword).status == 429)
        // Once the wait has passed, the right password signs in.
        try database.connect().execute("update staff_sign_in_failures set failed_at = failed_at - interval '1 hour'")
        #expect(try browser.signIn("admin@cru.org", Self.adminPassword).status == 303)
    }

    @Test("a campus account sees only its own runs, and another's run by its id is not found")
    func campusAccountsSeeTheirOwnRuns() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        try browser.signIn("ana@cru.org", Self.campusPassword)
        let runs = try browser.get("/runs")
        #expect(runs.status == 200 && !runs.body.contains("central-coast") && runs.body.contains("No runs yet"))
        let anyRun = try database.count("select min(id) from import_runs")
        let other = try browser.get("/runs/\(anyRun)")
        #expect(other.status == 404 && !other.body.contains("central-coast"))
        let admin = try ConsoleClient(sameServerAs: browser)
        try admin.signIn("admin@cru.org", Self.adminPassword)
        #expect(try admin.get("/runs/\(anyRun)").body.contains("fixtures/central-coast/"))
    }

    @Test("names and file names with <script> and quotes are escaped")
    func namesAreEscaped() throws {
        let database = try database()
        let path = try scratch.writeFile("<script>alert('x')<script>\".csv", "email,first_name,last_name\nnew@example.edu,New,Student\n")
        #expect(try database.run(["import", "students", path]).status == 0)
        let browser = try ConsoleClient(serving: database)
        try browser.signIn("admin@cru.org", Self.adminPassword)
        let runs = try browser.get("/runs")
        #expect(!runs.body.contains("<script>"))
        #expect(runs.body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;script&gt;&quot;.csv"))
        let id = try database.count("select max(id) from import_runs")
        let run = try browser.get("/runs/\(id)")
        #expect(run.status == 200 && !run.body.contains("<script>") && run.body.contains("&lt;script&gt;"))
    }

    @Test("a new password or a removed account ends the account's sessions")
    func credentialsChangesEndSessions() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database)
        try browser.signIn("ana@cru.org", Self.campusPassword)
        #expect(try browser.get("/runs").status == 200)
        let changed = try CommandResult.run(["-c", "printf 'a new passphrase\\n' | '\(TestEnvironment.binary)' staff password ana@cru.org"],
                                            executable: "/bin/sh", environment: ["DATABASE_URL": database.url])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try browser.get("/runs").status == 303)
        try browser.signIn("ana@cru.org", "a new passphrase")
        #expect(try browser.get("/runs").status == 200)
        #expect(try database.run(["staff", "remove", "ana@cru.org"]).status == 0)
        #expect(try browser.get("/runs").status == 303)
        #expect(try database.count("select count(*) from staff_sessions") == 0)
    }

    @Test("messages: counts for every account; the dead ones and Requeue for an admin only")
    func messages() throws {
        let database = try database()
        let connection = try database.connect()
        try #require(try database.count("select count(*) from notifications") > 0)
        try connection.execute("""
            update notifications set status = 'dead', attempts = 5, last_error = '550 5.1.1 <x@y.z>: no such user'
            where id = (select min(id) from notifications)
            """)
        let campus = try ConsoleClient(serving: database)
        try campus.signIn("ana@cru.org", Self.campusPassword)
        let counted = try campus.get("/messages")
        #expect(counted.status == 200 && counted.body.contains("<th>dead</th>") && !counted.body.contains("no such user"))
        let token = try #require(ConsoleClient.csrf(in: counted.body))
        #expect(try campus.post("/messages/requeue", [("csrf", token), ("status", "dead")]).status == 403)
        #expect(try database.count("select count(*) from notifications where status = 'dead'") == 1)

        let admin = try ConsoleClient(sameServerAs: campus)
        try admin.signIn("admin@cru.org", Self.adminPassword)
        let page = try admin.get("/messages")
        #expect(page.body.contains("550 5.1.1 &lt;x@y.z&gt;: no such user"))
        let requeued = try admin.post("/messages/requeue", [("csrf", try #require(ConsoleClient.csrf(in: page.body))), ("status", "dead")])
        #expect(requeued.status == 200 && requeued.body.contains("requeued 1 dead notification"))
        #expect(try database.count("select count(*) from notifications where status = 'dead'") == 0)
    }

    @Test("a session unused longer than --idle-minutes is over")
    func idleSessionsEnd() throws {
        let database = try database()
        let browser = try ConsoleClient(serving: database, arguments: ["--idle-minutes", "30"])
        try browser.signIn("admin@cru.org", Self.adminPassword)
        #expect(try browser.get("/runs").status == 200)
        try database.connect().execute("update staff_sessions set last_seen_at = now() - interval '29 minutes'")
        #expect(try browser.get("/runs").status == 200)
        try database.connect().execute("update staff_sessions set last_seen_at = now() - interval '31 minutes'")
        let idle = try browser.get("/runs")
        #expect(idle.status == 303 && idle.header("location") == "/login")
    }

    @Test("nightly: an admin downloads the files the manifest lists; nothing else, and no campus account")
    func nightlyFiles() throws {
        let database = try database()
        let out = try scratch.folder("nightly")
        #expect(try database.run(["nightly", "--out", out, "--quiet"]).status == 0)
        let date = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasPrefix("20") })
        try "not listed".write(toFile: "\(out)/\(date)/extra.csv", atomically: true, encoding: .utf8)
        let admin = try ConsoleClient(serving: database)
        try admin.signIn("admin@cru.org", Self.adminPassword)
        let page = try admin.get("/nightly")
        #expect(page.status == 200 && page.body.contains(out) && page.body.contains("data/students.csv"), "\(page.body)")
        let saved = try scratch.folder() + "/students.csv"
        #expect(try admin.download("/nightly/0/\(date)/data/students.csv", to: saved).status == 200)
        #expect(FileManager.default.contentsEqual(atPath: saved, andPath: "\(out)/\(date)/data/students.csv"))
        for probe in ["/nightly/0/\(date)/extra.csv", "/nightly/0/\(date)/../../../../etc/passwd", "/nightly/0/\(date)/data%2F..%2F..%2Fextra.csv",
                      "/nightly/1/\(date)/data/students.csv", "/nightly/0/..%2F\(date)/data/students.csv"] {
            #expect(try admin.get(probe).status == 404, "\(probe)")
        }
        let campus = try ConsoleClient(sameServerAs: admin)
        try campus.signIn("ana@cru.org", Self.campusPassword)
        #expect(try campus.get("/nightly").body.contains("an admin's page"))
        #expect(try campus.get("/nightly/0/\(date)/data/students.csv").status == 403)
    }

    @Test("sources: every account sees the URLs imports read; an admin fetches one now, as import KIND URL does")
    func sourcesFetchNow() throws {
        let database = try database()
        let served = try scratch.writeFile("campuses.csv",
                                           try String(contentsOfFile: TestEnvironment.fixture("central-coast/campuses.csv"), encoding: .utf8))
        let server = try FaultyHTTPServer(files: ["/campuses.csv": served], tls: false)
        let url = server.url("/campuses.csv")
        #expect(try database.run(["import", "campuses", url]).status == 0)
        try (try String(contentsOfFile: served, encoding: .utf8)
             + "slo-high,San Luis Obispo High School,San Luis Obispo,CA,US,America/Los_Angeles,,,\n")
            .write(toFile: served, atomically: true, encoding: .utf8)
        let campus = try ConsoleClient(serving: database)
        try campus.signIn("ana@cru.org", Self.campusPassword)
        let listed = try campus.get("/sources")
        #expect(listed.body.contains(url) && !listed.body.contains("Fetch now"))
        let source = try database.count("select min(id) from sources")
        #expect(try campus.post("/sources/fetch", [("csrf", try campus.csrf()), ("source", String(source))]).status == 403)
        #expect(try database.count("select count(*) from campuses") == 3)

        let admin = try ConsoleClient(sameServerAs: campus)
        try admin.signIn("admin@cru.org", Self.adminPassword)
        let fetched = try admin.post("/sources/fetch", [("csrf", try admin.csrf()), ("source", String(source))])
        #expect(fetched.status == 200 && fetched.body.contains("inserted"), "\(fetched.body)")
        #expect(try database.count("select count(*) from campuses") == 4)
        #expect(try database.connect().query("select os_user from import_runs order by id desc limit 1").scalar(String.self)
                == "console:admin@cru.org")
    }
}
