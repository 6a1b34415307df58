import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `import KIND URL` against scripts/faulty-http over TLS with a certificate made for the test:
/// every fault ends with its exit code and message within its limit and writes nothing; a URL
/// whose content did not change loads nothing the second time.
@Suite("import from a URL")
struct URLImportTests {
    private let scratch = ScratchDirectory()

    /// A server behaviour and what `import` makes of it.
    struct Fault: Sendable, CustomTestStringConvertible {
        let path: String
        let status: Int32
        /// The error's code in a JSON report.
        let code: String
        let message: String
        let seconds: Double
        var testDescription: String { path }
    }

    static let faults = [
        Fault(path: "/slow", status: 69, code: "source-timeout", message: "no complete answer within 2 s (--fetch-timeout)", seconds: 8),
        Fault(path: "/silent", status: 69, code: "source-timeout", message: "no complete answer within 2 s (--fetch-timeout)", seconds: 8),
        Fault(path: "/loop", status: 69, code: "source-redirect-loop", message: "more than 5 redirects", seconds: 8),
        Fault(path: "/to-file", status: 69, code: "source-redirect-refused",
              message: "refused a redirect to file:///etc/passwd: only http and https", seconds: 8),
        Fault(path: "/endless", status: 65, code: "source-too-large",
              message: "larger than the limit of 1000000 bytes (--max-bytes)", seconds: 8),
        Fault(path: "/status/403", status: 69, code: "source-http-error",
              message: "the server answered HTTP 403: the link needs a login", seconds: 8),
        Fault(path: "/status/500", status: 69, code: "source-http-error", message: "the server answered HTTP 500", seconds: 8),
        Fault(path: "/login", status: 65, code: "unreadable-input", message: "the server sent a web page (HTML), not CSV", seconds: 8),
        Fault(path: "/truncated", status: 69, code: "source-unreachable", message: "could not fetch: transfer closed with", seconds: 8),
        Fault(path: "/gzip-bomb", status: 65, code: "source-too-large",
              message: "larger than the limit of 1000000 bytes (--max-bytes)", seconds: 8),
    ]

    @Test("a failing server gives its exit code and message in time, and nothing is written", arguments: faults)
    func fault(_ fault: Fault) throws {
        let server = try FaultyHTTPServer()
        let database = try TestDatabase()
        let url = server.url(fault.path, userInfo: "staff:s3cret-word@")
        let started = Date()
        let result = try database.run(["import", "campuses", url, "--cacert", server.caBundle,
                                       "--fetch-timeout", "2", "--max-bytes", "1MB"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == fault.status, "\(result.stderr)")
        #expect(result.stderr.contains(fault.message), "\(result.stderr)")
        #expect(result.stderr.contains(server.url(fault.path, userInfo: "staff:***@")), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"))
        #expect(elapsed < fault.seconds, "took \(elapsed) s")
        let json = try database.run(["import", "campuses", url, "--cacert", server.caBundle,
                                     "--fetch-timeout", "2", "--max-bytes", "1MB", "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let error = document?["error"] as? [String: Any]
        #expect(error?["code"] as? String == fault.code, "\(json.stdout)")
        #expect(error?["exit"] as? Int == Int(fault.status))
        #expect(!json.stdout.contains("s3cret"))
        #expect(try database.count("select count(*) from campuses") == 0)
        #expect(try database.count("select count(*) from import_runs") == 0)
        #expect(try database.count("select count(*) from sources") == 0)
    }

    @Test("an unreachable server is exit 69, naming the URL")
    func unreachable() throws {
        let database = try TestDatabase()
        let result = try database.run(["import", "campuses", "http://127.0.0.1:1/campuses.csv", "--format", "json"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.contains("source-unreachable"), "\(result.stdout)")
        #expect(result.stdout.contains("http://127.0.0.1:1/campuses.csv"))
        #expect(try database.count("select count(*) from import_runs") == 0)
    }

    @Test("a server whose certificate is not trusted is refused")
    func untrustedCertificate() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let result = try database.run(["import", "campuses", server.url("/campuses.csv")],
                                      environment: ["CURL_CA_BUNDLE": ""])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(try database.count("select count(*) from campuses") == 0)
    }

    @Test("a Google Sheets link is read as its CSV export; a published link as it is")
    func googleSheetLinks() {
        let id = "1AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789-abcd"
        #expect(RemoteLocation("https://docs.google.com/spreadsheets/d/\(id)/edit#gid=123456")?.fetchURL
            == "https://docs.google.com/spreadsheets/d/\(id)/export?format=csv&gid=123456")
        #expect(RemoteLocation("https://docs.google.com/spreadsheets/d/\(id)/edit?usp=sharing")?.fetchURL
            == "https://docs.google.com/spreadsheets/d/\(id)/export?format=csv")
        #expect(RemoteLocation("https://docs.google.com/spreadsheets/d/\(id)/edit?gid=7#gid=7")?.fetchURL
            == "https://docs.google.com/spreadsheets/d/\(id)/export?format=csv&gid=7")
        #expect(RemoteLocation("https://docs.google.com/spreadsheets/d/\(id)/edit#gid=0", sheet: "Fall")?.fetchURL
            == "https://docs.google.com/spreadsheets/d/\(id)/export?format=xlsx")
        let published = "https://docs.google.com/spreadsheets/d/e/2PACX-1vQ/pub?gid=0&single=true&output=csv"
        #expect(RemoteLocation(published)?.fetchURL == published)
        #expect(RemoteLocation("https://docs.google.com/spreadsheets/d/\(id)/edit")?.isGoogleSheet == true)
        #expect(RemoteLocation("webcal://calendar.example.org/cru.ics")?.fetchURL == "https://calendar.example.org/cru.ics")
        #expect(RemoteLocation("https://u:pw@example.org/a.csv")?.displayName == "https://u:***@example.org/a.csv")
        #expect(RemoteLocation("fixtures/campuses.csv") == nil)
    }

    @Test("a fetched CSV loads; unchanged it writes nothing and says since which run; changed it loads; --force loads")
    func onlyWhenChanged() throws {
        let served = try scratch.writeFile("campuses.csv",
                                           try String(contentsOfFile: TestEnvironment.fixture("central-coast/campuses.csv"), encoding: .utf8))
        let server = try FaultyHTTPServer(files: ["/campuses.csv": served])
        let database = try TestDatabase()
        let url = server.url("/campuses.csv")
        let first = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try database.count("select count(*) from campuses") == 3)
        let runID = try database.count("select max(id) from import_runs")
        #expect(try database.connect().query("select file_name from import_runs where id = \(runID)").text == url)
        #expect(try database.count("select count(*) from sources where run_id = \(runID) and etag is not null and last_modified is not null") == 1)

        let second = try database.run(["import", "campuses", url], environment: ["CURL_CA_BUNDLE": server.caBundle])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("campuses \(url): unchanged since run \(runID), nothing written"), "\(second.stdout)")
        #expect(try database.count("select count(*) from import_runs") == 1)
        #expect(server.requests.last?.ifNoneMatch != nil)

        // A new ETag over the same bytes: the SHA-256 says unchanged.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: served)
        let touched = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(touched.stdout.contains("unchanged since run \(runID)"), "\(touched.stdout)")
        #expect(server.requests.count == 3)
        #expect(try database.count("select count(*) from import_runs") == 1)

        try (try String(contentsOfFile: served, encoding: .utf8)
             + "slo-high,San Luis Obispo High School,San Luis Obispo,CA,US,America/Los_Angeles,,,\n")
            .write(toFile: served, atomically: true, encoding: .utf8)
        let changed = try database.run(["import", "campuses", url, "--cacert", server.caBundle, "--format", "json"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try database.count("select count(*) from campuses") == 4)
        #expect(try database.count("select count(*) from import_runs where status = 'succeeded'") == 2)

        let forced = try database.run(["import", "campuses", url, "--cacert", server.caBundle, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(!forced.stdout.contains("unchanged since"))
        #expect(try database.count("select count(*) from import_runs where status = 'succeeded'") == 3)
        #expect(server.requests.last?.ifNoneMatch == nil)
    }

    @Test("a source whose last import was undone loads again")
    func undoneSourceLoadsAgain() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let url = server.url("/campuses.csv")
        #expect(try database.run(["import", "campuses", url, "--cacert", server.caBundle]).status == 0)
        let runID = try database.count("select max(id) from import_runs")
        let undo = try database.run(["undo", String(runID)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try database.count("select count(*) from campuses") == 0)
        let again = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try database.count("select count(*) from campuses") == 3)
    }

    @Test("a bad cell in a fetched file is reported at the URL's line and column, its password masked in the report too")
    func diagnosticsNameTheURL() throws {
        let served = try scratch.writeFile("campuses.csv", "code,name,timezone\ncalpoly,Cal Poly,Mars/Olympus\n")
        let server = try FaultyHTTPServer(files: ["/campuses.csv": served])
        let database = try TestDatabase()
        let url = server.url("/campuses.csv", userInfo: "staff:s3cret-word@")
        let report = try scratch.folder() + "/report.html"
        let result = try database.run(["import", "campuses", url, "--cacert", server.caBundle, "--report", report])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(server.url("/campuses.csv", userInfo: "staff:***@") + ":2:3: error["), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret") && !result.stdout.contains("s3cret"))
        // The HTML report names the URL as the diagnostics do, its password masked, in its title too.
        let page = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!page.contains("s3cret") && page.contains("staff:***@"), "\(page.prefix(400))")
        #expect(try database.count("select count(*) from sources") == 0)
    }

    @Test("a sources file loads its kinds in dependency order in one transaction; a failing source writes nothing")
    func sourcesFile() throws {
        let fixture = TestEnvironment.fixture("central-coast")
        let server = try FaultyHTTPServer(files: ["/campuses.csv": fixture + "/campuses.csv",
                                                  "/groups.csv": fixture + "/groups.csv",
                                                  "/calendar": TestEnvironment.fixture("ics/google.ics")])
        let folder = try scratch.folder("sheets")
        try FileManager.default.copyItem(atPath: fixture + "/leaders.csv", toPath: folder + "/Leaders - Fall.csv")
        let list = try scratch.writeFile("sheets/sources.csv", """
            kind,source,sync,scope,sheet,map,ministry
            groups,\(server.url("/groups.csv")),,,,,
            events,\(server.url("/calendar")),,,,,cru-calpoly
            leaders,Leaders - Fall.csv,,,,,
            ministries,\(fixture)/ministries.csv,yes,campus=calpoly,,,
            campuses,\(server.url("/campuses.csv")),,,,,

            """)
        let database = try TestDatabase()
        let failing = try scratch.writeFile("failing.csv", """
            kind,source
            campuses,\(server.url("/campuses.csv"))
            groups,\(server.url("/status/500"))
            leaders,\(folder)/Leaders - Fall.csv

            """)
        let failed = try database.run(["import", "--sources", failing, "--cacert", server.caBundle])
        #expect(failed.status == 69, "\(failed.stderr)")
        #expect(failed.stderr.contains("/status/500: the server answered HTTP 500"))
        #expect(try database.tableCounts().values.allSatisfy { $0 == 0 })
        #expect(try database.count("select count(*) from import_runs") == 0)
        #expect(try database.count("select count(*) from sources") == 0)

        let badGroups = try scratch.writeFile("bad-groups.csv", "code,ministry,name,leaders\ncp-x,no-such-ministry,X,a@b.org\n")
        let rejected = try scratch.writeFile("rejected.csv", """
            kind,source
            campuses,\(server.url("/campuses.csv"))
            groups,\(badGroups)

            """)
        let rejection = try database.run(["import", "--sources", rejected, "--cacert", server.caBundle])
        #expect(rejection.status == 1, "\(rejection.stderr)")
        #expect(try database.tableCounts().values.allSatisfy { $0 == 0 }, "one transaction: the campuses rolled back too")
        #expect(try database.count("select count(*) from sources") == 0)

        let result = try database.run(["import", "--sources", list, "--cacert", server.caBundle])
        #expect(result.status == 0, "\(result.stderr)")
        let runs = try database.connect().query("select kind from import_runs where status = 'succeeded' order by id")
            .rows.map { try $0.decode(String.self, 0) }
        #expect(runs == ["campuses", "ministries", "leaders", "groups", "events"])
        #expect(try database.count("""
            select count(*) from event_ministries em join ministries m on m.id = em.ministry_id where m.code = 'cru-calpoly'
            """) == 4)
        #expect(try database.count("select count(*) from community_groups") == 44)
        #expect(try database.count("select count(*) from sources") == 3)

        let again = try database.run(["import", "--sources", list, "--cacert", server.caBundle, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((report["unchanged"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["campuses", "groups", "events"])
        #expect((report["files"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["ministries", "leaders"])
    }

    @Test("a kind listed twice in a sources file is a usage error that masks the URLs' passwords")
    func kindTwice() throws {
        let list = try scratch.writeFile("sources.csv", """
            kind,source
            campuses,https://staff:s3cret-word@sheets.example.org/a.csv
            campuses,https://staff:s3cret-word@sheets.example.org/b.csv

            """)
        let database = try TestDatabase()
        let result = try database.run(["import", "--sources", list])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("campuses is given twice (https://staff:***@sheets.example.org/a.csv and"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"))
    }

    @Test("the sources file example beside the cron example reads as six sources with their options")
    func sourcesExample() throws {
        let example = TestEnvironment.root.appendingPathComponent("scripts/schedule/sources.csv.example").path
        let entries = try SourcesFile.read(example)
        #expect(entries.map(\.source.kind) == [.campuses, .ministries, .leaders, .groups, .students, .events])
        #expect(entries[3].source.sync == .campus("calpoly") && entries[3].map == "Group Name=name")
        #expect(entries[4].source.sheet == "Fall")
        #expect(entries[5].source.eventOwner == .ministry("cru-calpoly"))
    }

    @Test("validate and a dry run of a URL remember nothing, so the real import still loads it")
    func validateAndDryRunRememberNothing() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let url = server.url("/campuses.csv")
        let validated = try database.run(["validate", "campuses", url, "--cacert", server.caBundle])
        #expect(validated.status == 0, "\(validated.stderr)")
        let dry = try database.run(["import", "campuses", url, "--cacert", server.caBundle, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try database.count("select count(*) from sources") == 0)
        #expect(try database.count("select count(*) from campuses") == 0)
        let loaded = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(loaded.status == 0 && !loaded.stdout.contains("unchanged since"), "\(loaded.stdout)\(loaded.stderr)")
        #expect(try database.count("select count(*) from campuses") == 3)
    }

    @Test("a URL whose last load rejected a row loads again every time, exit 1 while the row is bad, until its cause is fixed")
    func rejectedRowsAreNeverUnchanged() throws {
        let database = try TestDatabase()
        let campuses = try scratch.writeFile("campuses.csv", "code,name\ncalpoly,Cal Poly\n")
        #expect(try database.run(["import", "campuses", campuses]).status == 0)
        let served = try scratch.writeFile("ministries.csv", "code,name,campus\ncru-calpoly,Cru Cal Poly,calpoly\ncru-cuesta,Cru Cuesta,cuesta\n")
        let server = try FaultyHTTPServer(files: ["/ministries.csv": served])
        let url = server.url("/ministries.csv")
        for night in 1...2 {
            let result = try database.run(["import", "ministries", url, "--cacert", server.caBundle, "--on-error", "skip"])
            #expect(result.status == 1, "night \(night): \(result.stdout) \(result.stderr)")
            #expect(!result.stdout.contains("unchanged since"), "night \(night): \(result.stdout)")
            #expect(result.stderr.contains("campus \"cuesta\" does not exist"), "\(result.stderr)")
        }
        #expect(try database.count("select count(*) from ministries") == 1)

        // The cause is fixed in the database, not in the sheet: the same content now loads whole.
        let fixed = try scratch.writeFile("cuesta.csv", "code,name\ncuesta,Cuesta College\n")
        #expect(try database.run(["import", "campuses", fixed]).status == 0)
        let loaded = try database.run(["import", "ministries", url, "--cacert", server.caBundle, "--on-error", "skip"])
        #expect(loaded.status == 0, "\(loaded.stdout) \(loaded.stderr)")
        #expect(try database.count("select count(*) from ministries") == 2)
        let runID = try database.count("select max(id) from import_runs")
        let unchanged = try database.run(["import", "ministries", url, "--cacert", server.caBundle])
        #expect(unchanged.stdout.contains("unchanged since run \(runID), nothing written"), "\(unchanged.stdout)")
    }

    @Test("a URL is unchanged only while its tables are as its load left them: a row edited since is put back")
    func editedRowsAreNotUnchanged() throws {
        let database = try TestDatabase()
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let url = server.url("/campuses.csv")
        #expect(try database.run(["import", "campuses", url, "--cacert", server.caBundle]).status == 0)
        let runID = try database.count("select max(id) from import_runs")
        try database.connect().execute("update campuses set name = 'Edited by the app' where code = 'calpoly'")
        let again = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("unchanged since"), "\(again.stdout)")
        #expect(try database.count("select count(*) from campuses where name = 'Edited by the app'") == 0)
        #expect(try database.count("select max(id) from import_runs") > runID)

        // Rows added by another file change the outcome of a sync from the same URL: it archives them.
        let other = try scratch.writeFile("extra.csv", "code,name\nextra,Extra College\n")
        #expect(try database.run(["import", "campuses", other]).status == 0)
        let sync = try database.run(["import", "campuses", url, "--cacert", server.caBundle, "--sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(!sync.stdout.contains("unchanged since"), "\(sync.stdout)")
        #expect(try database.count("select count(*) from campuses where code = 'extra' and archived_at is not null") == 1)
    }

    @Test("a 304 to a request that named no copy is an error, alone and in a sources file, and writes nothing")
    func unaskedNotModified() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let alone = try database.run(["import", "campuses", server.url("/not-modified"), "--cacert", server.caBundle])
        #expect(alone.status == 69, "\(alone.stdout) \(alone.stderr)")
        #expect(alone.stderr.contains("answered 304 Not Modified to a request that named no copy to compare with"), "\(alone.stderr)")
        let list = try scratch.writeFile("sources.csv", """
            kind,source
            campuses,\(server.url("/campuses.csv"))
            ministries,\(server.url("/not-modified"))

            """)
        let listed = try database.run(["import", "--sources", list, "--cacert", server.caBundle])
        #expect(listed.status == 69, "\(listed.stdout) \(listed.stderr)")
        #expect(try database.tableCounts().values.allSatisfy { $0 == 0 })
        #expect(try database.count("select count(*) from import_runs") == 0)
    }

    @Test("tokens, keys and signatures in a URL's query are masked where it is stored and shown")
    func secretQueryValuesAreMasked() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let secrets = ["TOKEN-1f2e3d4c", "SIGNATURE-9a8b7c", "KEY-5e6f7a8b", "SIG-0011aabb"]
        let url = server.url("/campuses.csv?access_token=\(secrets[0])&X-Amz-Signature=\(secrets[1])&key=\(secrets[2])&sig=\(secrets[3])&gid=0")
        let result = try database.run(["import", "campuses", url, "--cacert", server.caBundle])
        #expect(result.status == 0, "\(result.stderr)")
        let masked = server.url("/campuses.csv?access_token=***&X-Amz-Signature=***&key=***&sig=***&gid=0")
        #expect(try database.connect().query("select url from sources").text == masked)
        #expect(try database.connect().query("select file_name from import_runs").text == masked)
        let failed = try database.run(["import", "campuses", server.url("/status/500?token=\(secrets[0])"), "--cacert", server.caBundle])
        #expect(failed.stderr.contains(server.url("/status/500?token=***")), "\(failed.stderr)")
        for output in [result.stdout, result.stderr, failed.stdout, failed.stderr] {
            #expect(!secrets.contains { output.contains($0) }, "\(output)")
        }
    }

    @Test("a redirect from the internet to this machine is refused unless --allow-private-redirects",
          .enabled(if: getuid() == 0, "giving the loopback device an internet address needs root"))
    func redirectIntoThePrivateNetwork() throws {
        // An address of the documentation range, which counts as the internet, on this machine.
        let address = "198.51.100.7"
        let added = try CommandResult.run(["addr", "add", address + "/32", "dev", "lo"], executable: "/sbin/ip")
        defer { if added.status == 0 { _ = try? CommandResult.run(["addr", "del", address + "/32", "dev", "lo"], executable: "/sbin/ip") } }
        try #require(added.status == 0 || added.stderr.contains("File exists"), "\(added.stderr)")
        let inside = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")], tls: false)
        let outside = try FaultyHTTPServer(tls: false, host: address)
        let url = outside.url("/redirect?to=" + inside.url("/campuses.csv"))
        let database = try TestDatabase()
        let refused = try database.run(["import", "campuses", url])
        #expect(refused.status == 69, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("refused a redirect to \(inside.url("/campuses.csv")) (127.0.0.1), an address of a private network or of this machine"),
                "\(refused.stderr)")
        #expect(inside.requests.isEmpty, "nothing was sent to the private address")
        let allowed = try database.run(["import", "campuses", url, "--allow-private-redirects"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try database.count("select count(*) from campuses") == 3)
    }

    @Test("a download stopped by SIGINT or SIGTERM leaves nothing of itself in the temporary folder")
    func interruptedDownloadLeavesNothing() throws {
        let server = try FaultyHTTPServer()
        let database = try TestDatabase()
        for signal in [SIGINT, SIGTERM] {
            let folder = try scratch.folder("tmp-\(signal)")
            let before = server.requests.count
            let command = try BackgroundCommand(["import", "students", server.url("/slow"), "--cacert", server.caBundle],
                                                environment: ["DATABASE_URL": database.url, "TMPDIR": folder], defaultSignals: true)
            let began = waitUntil(timeout: 10) { server.requests.count > before || !command.isRunning }
            let soFar = try command.stderrSoFar()
            try #require(began && command.isRunning, "the download did not begin: \(soFar)")
            Thread.sleep(forTimeInterval: 1.5)
            command.signal(signal)
            let result = try command.finish()
            #expect(result.status != 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    @Test("--sheet naming no sheet of a fetched workbook names the URL, never the download's temporary path")
    func missingSheetNamesTheURL() throws {
        let server = try FaultyHTTPServer(files: ["/students.xlsx": TestEnvironment.fixture("xlsx/central-coast/students.xlsx")])
        let database = try TestDatabase(importing: "central-coast")
        let url = server.url("/students.xlsx")
        let result = try database.run(["validate", "students", url, "--sheet", "Fall", "--cacert", server.caBundle])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("\(url) has no sheet \"Fall\"; its sheets are: \"students\""), "\(result.stderr)")
        #expect(!result.stderr.contains("/proc/") && !result.stderr.contains("/tmp/"), "\(result.stderr)")
    }

    @Test("a body sent in chunks loads as the same file sent whole")
    func chunkedBody() throws {
        let server = try FaultyHTTPServer(files: ["/campuses.csv": TestEnvironment.fixture("central-coast/campuses.csv")])
        let database = try TestDatabase()
        let result = try database.run(["import", "campuses", server.url("/chunked/campuses.csv"), "--cacert", server.caBundle])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.count("select count(*) from campuses") == 3)
    }
}
