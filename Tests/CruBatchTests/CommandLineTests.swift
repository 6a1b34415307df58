import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// crubatch as a Unix citizen: `--quiet` says nothing on success, `--format json` is one versioned
/// document for every command (errors included), and the scheduled examples run under /bin/sh.
@Suite("command line: quiet, JSON, schedule, help")
struct CommandLineTests {
    private static var smtp: [String: String] {
        get throws { ["CRUBATCH_SMTP_URL": try MailSink.url(), "CRUBATCH_FROM": "Cru Tests <tests@cru.example>"] }
    }

    /// One answer of the sample questionnaire that the sample groups take: placing it twice is a no-op.
    private static func placeableAnswer(in folder: String) throws -> String {
        let lines = try String(contentsOfFile: TestEnvironment.fixture("get-involved/answers-small.csv"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let expected = try String(contentsOfFile: TestEnvironment.fixture("get-involved/answers-small-expected.csv"), encoding: .utf8)
        let placedLine = try #require(expected.split(separator: "\n").first { $0.hasSuffix(",placed,") })
        let line = try #require(Int(placedLine.split(separator: ",")[0]))
        let path = folder + "/answer.csv"
        try writeFile(path, lines[0] + "\n" + lines[line - 1] + "\n")
        return path
    }

    @Test("--quiet: every command that succeeds with nothing to report prints nothing at all")
    func quietNoOps() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            let fixtures = TestEnvironment.fixture("central-coast")
            let answer = try Self.placeableAnswer(in: folder)
            let first = try database.run(["place", answer])
            try #require(first.status == 0, "\(first.stdout)\(first.stderr)")
            let smtp = try Self.smtp
            #expect(try database.run(["notify", "--quiet"], environment: smtp).status == 0)

            let commands: [[String]] = [
                ["migrate", "--quiet"],
                ["import", "--dir", fixtures, "--quiet"],
                ["import", "groups", fixtures + "/groups.csv", "-q"],
                ["validate", "groups", fixtures + "/groups.csv", "--quiet"],
                ["export", "groups", "--out", folder + "/groups.csv", "--quiet"],
                ["export", "roster", "--campus", "calpoly", "--out", folder + "/roster.csv", "--quiet"],
                ["export", "roster", "--campus", "calpoly", "--format", "xlsx", "--out", folder + "/roster.xlsx", "-q"],
                ["export", "calendar", "--campus", "calpoly", "--out", folder + "/calpoly.ics", "--quiet"],
                ["export", "rides", "--event", "fall-retreat-2026", "--out", folder + "/rides.csv", "--quiet"],
                ["rides", "cancel", "--offer", String(try database.count("select min(id) from ride_offers where status = 'open'")), "-q"],
                ["nightly", "--out", folder + "/nightly", "--quiet"],
                ["place", answer, "--quiet"],
                ["notify", "--quiet"],
                ["runs", "--quiet"],
                ["status", "--quiet"],
            ]
            for arguments in commands {
                let result = try database.run(arguments, environment: smtp)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments) printed on stdout: \(result.stdout)")
                #expect(result.stderr.isEmpty, "\(arguments) printed on stderr: \(result.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: folder + "/nightly/latest/manifest.json"))
        }
    }

    @Test("--format json: one document per command, with format 1, the command and its fields")
    func jsonDocuments() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            let fixtures = TestEnvironment.fixture("central-coast")
            func document(_ arguments: [String], status: Int32 = 0) throws -> [String: Any] {
                let result = try database.run(arguments + ["--format", "json"], environment: try Self.smtp)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                let object = try jsonObject(result.stdout)
                #expect(object["format"] as? Int == 1, "\(arguments)")
                return object
            }
            let migrate = try document(["migrate"])
            #expect(migrate["command"] as? String == "migrate")
            #expect((migrate["applied"] as? [Any])?.isEmpty == true)
            #expect((migrate["migrations"] as? [[String: Any]])?.count == Migration.all.count)

            let load = try document(["import", "groups", fixtures + "/groups.csv"])
            #expect(load["command"] as? String == "import")
            let file = try #require((load["files"] as? [[String: Any]])?.first)
            #expect(file["unchanged"] as? Int == 44 && file["inserted"] as? Int == 0 && file["would_insert"] == nil)
            #expect(load["exit_status"] as? Int == 0)

            let check = try document(["validate", "groups", fixtures + "/groups.csv"])
            #expect(check["command"] as? String == "validate" && check["wrote"] as? Bool == false)

            let status = try document(["status"])
            let tables = try #require(status["tables"] as? [[String: Any]])
            #expect(tables.contains { $0["table"] as? String == "community_groups" && $0["rows"] as? Int == 44 })
            #expect(status["notifications"] is [String: Any])

            let runs = try document(["runs", "--limit", "3"])
            #expect((runs["runs"] as? [[String: Any]])?.first?["kind"] as? String == "groups")

            let notify = try document(["notify"])
            #expect(notify["command"] as? String == "notify")
            #expect((notify["sent"] as? Int ?? 0) > 0 && notify["failed"] as? Int == 0)

            let nightly = try document(["nightly", "--out", folder + "/nightly"])
            #expect((nightly["files"] as? Int ?? 0) > 10)
            #expect((nightly["manifest"] as? [String: Any])?["files"] is [Any])

            let place = try document(["place", try Self.placeableAnswer(in: folder)])
            #expect(place["command"] as? String == "place" && (place["counts"] as? [String: Any])?["placed"] as? Int == 1)

            let groups = try document(["export", "groups"])
            #expect(groups["kind"] as? String == "groups" && (groups["rows"] as? [Any])?.count == 44)
            let roster = try document(["export", "roster", "--campus", "calpoly"])
            #expect(roster["kind"] as? String == "roster" && roster["groups"] is [Any])
            let calendar = try document(["export", "calendar", "--campus", "calpoly"])
            #expect(((calendar["events"] as? [[String: Any]])?.count ?? 0) > 5)
            let rides = try document(["export", "rides", "--event", "fall-retreat-2026"])
            #expect(rides["kind"] as? String == "rides" && (rides["cars"] as? [Any])?.count == 2)
            let cancel = try document(["rides", "cancel", "--request", "999999"], status: 64)
            #expect((cancel["error"] as? [String: Any])?["code"] as? String == "usage")
        }
    }

    @Test("a rejected or dry run reports would_insert, never inserted; runs records what was written: nothing")
    func nothingWrittenIsNotInserted() throws {
        let database = try TestDatabase()
        try withScratchDirectory { folder in
            let path = folder + "/campuses.csv"
            try writeFile(path, "code,name\nnorth,North Campus\nsouth,South Campus\n,Nameless\n")
            let rejected = try database.run(["import", "campuses", path, "--format", "json"])
            #expect(rejected.status == 1)
            let report = try jsonObject(rejected.stdout)
            #expect(report["outcome"] as? String == "rejected")
            let file = try #require((report["files"] as? [[String: Any]])?.first)
            #expect(file["would_insert"] as? Int == 2 && file["inserted"] == nil, "\(file)")
            let runs = try jsonObject(try database.run(["runs", "--format", "json"]).stdout)
            let run = try #require((runs["runs"] as? [[String: Any]])?.first)
            #expect(run["status"] as? String == "rejected" && run["inserted"] as? Int == 0, "\(run)")
            #expect(try database.count("select count(*) from campuses") == 0)
        }
    }

    @Test("failures in JSON: an error object on stdout with code, exit and message (66, 69, 75)")
    func jsonErrors() throws {
        let database = try TestDatabase()
        func error(_ result: CommandResult) throws -> [String: Any] {
            let object = try jsonObject(result.stdout)
            #expect(object["format"] as? Int == 1)
            #expect(!result.stderr.isEmpty, "the human line still goes to stderr")
            return try #require(object["error"] as? [String: Any])
        }
        let missing = try database.run(["import", "groups", "/nonexistent/groups.csv", "--format", "json"])
        #expect(missing.status == 66)
        let notFound = try error(missing)
        #expect(notFound["code"] as? String == "file-not-found" && notFound["exit"] as? Int == 66)

        let down = try CommandResult.run(["status", "--format", "json", "--database-url",
                                          "postgresql://crubatch:S3cret@127.0.0.1:1/nowhere?connect_timeout=2"])
        #expect(down.status == 69)
        let unavailable = try error(down)
        #expect(unavailable["code"] as? String == "database-unavailable" && unavailable["exit"] as? Int == 69)
        #expect(!down.stdout.contains("S3cret") && !down.stderr.contains("S3cret"))

        // Another import of groups holds its lock.
        let holder = try database.connect()
        #expect(try holder.tryAdvisoryLock(0x6372_7562_1000 + Int64(Kind.allCases.firstIndex(of: .groups)!)))
        let locked = try database.run(["import", "groups", TestEnvironment.fixture("central-coast/groups.csv"), "--format", "json"])
        #expect(locked.status == 75)
        let busy = try error(locked)
        #expect(busy["code"] as? String == "locked" && busy["exit"] as? Int == 75)
        #expect((busy["message"] as? String)?.contains("another import of groups") == true)
    }

    @Test("usage errors under --format json: the JSON error object on stdout, exit 64, the message on stderr too")
    func jsonUsageErrors() throws {
        let cases: [(arguments: [String], command: String, mentions: String)] = [
            (["undo", "abc", "--format", "json"], "undo", "abc"),
            (["import", "nosuchkind", "x.csv", "--format", "json"], "import", "nosuchkind"),
            (["status", "--no-such-option", "--format=json"], "status", "--no-such-option"),
            (["import", "groups", "g.csv", "--sync", "--max-archive", "-5%", "--format", "json"], "import", "--max-archive"),
            (["import", "groups", "g.csv", "--sync", "--max-archive=-5%", "--format", "json"], "import", "-5%"),
            (["rides", "pair", "--bogus", "--format", "json"], "rides pair", "--bogus"),
            (["nightly", "--out", "nightly", "--keep", "0", "--format", "json"], "nightly", "--keep"),
            (["nosuchcommand", "--format", "json"], "crubatch", "nosuchcommand"),
            (["help", "nosuch", "--format", "json"], "crubatch", "nosuch"),
        ]
        for (arguments, command, mentions) in cases {
            let result = try CommandResult.run(arguments)
            #expect(result.status == 64, "\(arguments): exit \(result.status) \(result.stderr)")
            #expect(!result.stderr.isEmpty, "\(arguments): the human message still goes to stderr")
            let document = try jsonObject(result.stdout)
            #expect(document["format"] as? Int == 1 && document["command"] as? String == command, "\(arguments)")
            let error = try #require(document["error"] as? [String: Any], "\(arguments): \(result.stdout)")
            #expect(error["code"] as? String == "usage" && error["exit"] as? Int == 64, "\(arguments)")
            #expect((error["message"] as? String)?.contains(mentions) == true, "\(arguments): \(error)")
        }
        // Without --format json, a usage error prints nothing on stdout; help still exits 0.
        let text = try CommandResult.run(["undo", "abc"])
        #expect(text.status == 64 && text.stdout.isEmpty)
        let help = try CommandResult.run(["undo", "--help", "--format", "json"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: crubatch undo"))
    }

    @Test("notify --transport stdout --format json: one document with the summary and every message, nothing sent")
    func jsonPreviewOfDueMessages() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            let placed = try database.run(["place", try Self.placeableAnswer(in: folder)])
            try #require(placed.status == 0, "\(placed.stderr)")
            let pending = try database.count("select count(*) from notifications where status = 'pending'")
            try #require(pending > 0)
            let result = try database.run(["notify", "--transport", "stdout", "--format", "json", "--no-digest"])
            #expect(result.status == 0, "\(result.stderr)")
            let document = try jsonObject(result.stdout)
            #expect(document["command"] as? String == "notify" && document["preview"] as? Bool == true)
            let messages = try #require(document["messages"] as? [[String: Any]], "\(result.stdout)")
            #expect(messages.count == pending && document["previewed"] as? Int == pending)
            for message in messages {
                #expect((message["to"] as? [String])?.isEmpty == false && (message["subject"] as? String)?.isEmpty == false)
                #expect((message["body"] as? String)?.isEmpty == false)
            }
            #expect(!result.stdout.contains("\nSubject: "), "raw messages leaked onto stdout")
            #expect(try database.count("select count(*) from notifications where status = 'pending'") == pending)
        }
    }

    @Test("help for a command that does not exist is a usage error listing the commands")
    func helpUnknownCommand() throws {
        let result = try CommandResult.run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("nosuch") && result.stderr.contains("import") && result.stderr.contains("nightly"))
        let known = try CommandResult.run(["help", "import"])
        #expect(known.status == 0 && known.stdout.contains("USAGE: crubatch import"))
        // Paragraphs are wrapped by the help printer, never broken inside a phrase by the source.
        #expect(!known.stdout.contains("is one\ntransaction"))
    }

    @Test("the cron example runs under /bin/sh with the env file example: both jobs succeed silently")
    func cronExampleUnderSh() throws {
        let database = try TestDatabase(importing: "central-coast")
        let sheets = try FaultyHTTPServer(files: ["/groups.csv": TestEnvironment.fixture("central-coast/groups.csv")])
        try withScratchDirectory { folder in
            try writeFile(folder + "/sources.csv", """
                kind,source
                groups,\(sheets.url("/groups.csv"))
                campuses,\(TestEnvironment.fixture("central-coast/campuses.csv"))

                """)
            let schedule = TestEnvironment.root.appendingPathComponent("scripts/schedule").path
            // The example env file with this test's values, in its own quoting.
            var env = try String(contentsOfFile: schedule + "/crubatch.env.example", encoding: .utf8)
            let values = ["DATABASE_URL": database.url, "CRUBATCH_SMTP_URL": try MailSink.url()]
            env = env.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                guard let equals = line.firstIndex(of: "="), let value = values[String(line[..<equals])] else { return String(line) }
                return "\(line[..<equals])='\(value)'"
            }.joined(separator: "\n")
            try writeFile(folder + "/crubatch.env", env)

            let cron = try String(contentsOfFile: schedule + "/crubatch.cron", encoding: .utf8)
            let jobs = cron.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(jobs.count == 2)
            let sentBefore = try MailSink.messages(for: database).count
            for job in jobs {
                // The command after cron's five time fields, pointed at this test's files.
                let command = job.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)[5]
                    .replacingOccurrences(of: "/etc/crubatch.env", with: folder + "/crubatch.env")
                    .replacingOccurrences(of: "/usr/local/bin/crubatch", with: TestEnvironment.binary)
                    .replacingOccurrences(of: "/srv/cru/exports", with: folder + "/exports")
                    .replacingOccurrences(of: "/etc/crubatch/sources.csv", with: folder + "/sources.csv")
                let result = try CommandResult.run(["-c", command], executable: "/bin/sh",
                                                   environment: ["CURL_CA_BUNDLE": sheets.caBundle])
                #expect(result.status == 0, "\(command): \(result.stderr)")
                #expect(result.stdout.isEmpty && result.stderr.isEmpty, "cron would mail: \(result.stdout)\(result.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: folder + "/exports/latest/manifest.json"))
            #expect(try database.count("select count(*) from sources where kind = 'groups'") == 1)
            // One message per notification, or one digest for a leader with many.
            let sent = try MailSink.messages(for: database).count - sentBefore
            let marked = try database.count("select count(distinct message_id) from notifications where status = 'sent'")
            #expect(sent > 0 && sent == marked)
            #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
            let senders = try MailSink.messages(for: database).map { $0.raw("From") }
            #expect(senders.contains("\"Cru Central Coast\" <groups@cru.example>"))
        }
    }
}
