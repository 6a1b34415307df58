import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `crubatch undo` and `crubatch runs show`, from the before- and after-images every writing run logs.
@Suite("undo")
struct UndoTests {
    private let scratch = ScratchDirectory()

    private func loaded() throws -> TestDatabase { try TestDatabase(importing: "central-coast") }

    /// Writes `text` to the file `name` of this test's scratch folder; its path.
    private func write(_ text: String, _ name: String) throws -> String { try scratch.writeFile(name, text) }

    /// The run id of a one-file `import --format json` or of a `place --format json`.
    private func runID(_ result: CommandResult) throws -> Int {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = report["files"] as? [[String: Any]]
        return try #require((files?.first?["run_id"] ?? report["run_id"]) as? Int)
    }

    /// Every people row, `updated_at` included, to show a table is exactly as it was.
    private func peopleFingerprint(_ database: TestDatabase) throws -> String {
        try database.fingerprint(["people"])
    }

    /// A students file that changes the last name of the first 100 students and adds 20 new ones.
    private func hundredUpdatesTwentyNew(_ database: TestDatabase) throws -> (path: String, changed: [String]) {
        let changed = try database.connect().query("""
            select email, first_name, last_name from people where not is_leader order by email limit 100
            """).texts.map { $0.map { $0 ?? "" } }
        var text = "email,first_name,last_name\n"
        for row in changed { text += "\(row[0]),\(row[1]),\(row[2]) Updated\n" }
        for index in 0..<20 { text += "new\(index)@example.edu,New\(index),Student\n" }
        return (try write(text, "students.csv"), changed.map { $0[0] })
    }

    @Test("undo of an import that updated 100 students and inserted 20: export students is byte-identical to before")
    func undoRestoresExport() throws {
        let database = try loaded()
        let before = try database.run(["export", "students"])
        let people = try peopleFingerprint(database)
        let (file, _) = try hundredUpdatesTwentyNew(database)

        let load = try database.run(["import", "students", file, "--format", "json"])
        #expect(load.status == 0, "\(load.stderr)")
        let run = try runID(load)
        #expect(try database.run(["export", "students"]).stdout != before.stdout)
        let shown = try database.run(["runs", "show", String(run)])
        #expect(shown.stdout.contains("table   insert  update"), "\(shown.stdout)")
        #expect(shown.stdout.contains("people      20     100"), "\(shown.stdout)")
        let rows = try database.run(["runs", "show", String(run), "--rows"])
        #expect(rows.stdout.contains(" update: last_name \""))
        #expect(rows.stdout.contains(" Updated\", updated_at "))

        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("people 100 restored, 20 removed"), "\(undo.stdout)")
        let after = try database.run(["export", "students"])
        #expect(after.stdout == before.stdout)
        #expect(after.stdout.utf8.count > 10_000)
        #expect(try peopleFingerprint(database) == people, "rows come back exactly, updated_at included")
        let runs = try database.run(["runs", "--limit", "1"])
        #expect(runs.stdout.contains(" undone "))
        #expect(try database.run(["undo", String(run)]).status == 1)
    }

    @Test("undo refuses, listing the row, when a later run changed it, and writes nothing; undoing the later run first works")
    func undoAfterLaterChange() throws {
        let database = try loaded()
        let original = try database.run(["export", "students"]).stdout
        let (file, changed) = try hundredUpdatesTwentyNew(database)
        let first = try runID(try database.run(["import", "students", file, "--format", "json"]))
        let later = try database.run(["import", "students", try write("email,first_name,last_name\n\(changed[0]),Changed,Later\n", "later.csv"),
                                      "--format", "json"])
        let second = try runID(later)
        let id = try #require(try database.connect().query("select id from people where email = \(changed[0])").text)
        let people = try peopleFingerprint(database)

        let refused = try database.run(["undo", String(first)])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("cannot undo run \(first)"))
        #expect(refused.stdout.contains("nothing was written"))
        #expect(refused.stdout.contains("people {\"id\":\(id)}: changed after the run: first_name, last_name, updated_at"), "\(refused.stdout)")
        #expect(try peopleFingerprint(database) == people)
        #expect(try database.connect().query("select status from import_runs where id = \(first)").text == "succeeded")

        #expect(try database.run(["undo", String(second)]).status == 0)
        let undo = try database.run(["undo", String(first)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try database.run(["export", "students"]).stdout == original)
    }

    @Test("undo refuses to delete a row a later run uses; --force overwrites what changed after the run")
    func dependentsAndForce() throws {
        let database = try loaded()
        let original = try peopleFingerprint(database)
        let students = try runID(try database.run(["import", "students", try write(
            "email,first_name,last_name\nfresh@example.edu,Fresh,Face\n", "students.csv"), "--format", "json"]))
        let membership = try database.run(["import", "memberships", try write("group,email\ncp-small-tue,fresh@example.edu\n",
                                                                                "memberships.csv"), "--format", "json"])
        #expect(membership.status == 0, "\(membership.stderr)")

        let refused = try database.run(["undo", String(students)])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("memberships {\"id\":"), "\(refused.stdout)")
        #expect(refused.stdout.contains("which the run added"))
        #expect(try database.count("select count(*) from people where email = 'fresh@example.edu'") == 1)

        _ = try database.run(["import", "students", try write("email,first_name,last_name\nfresh@example.edu,Renamed,Face\n",
                                                                "rename.csv")])
        let forced = try database.run(["undo", String(students), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("overwrote"))
        #expect(try database.count("select count(*) from people where email = 'fresh@example.edu'") == 0)
        #expect(try peopleFingerprint(database) == original)
    }

    @Test("undo of a place: its memberships and new students go, and the notifications still pending are cancelled")
    func undoPlace() throws {
        let database = try loaded()
        let connection = try database.connect()
        try connection.execute("update notifications set status = 'sent', sent_at = now()")
        let memberships = try database.count("select count(*) from memberships")
        let people = try peopleFingerprint(database)

        let place = try database.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"), "--format", "json"])
        let run = try runID(place)
        let queued = try database.count("select count(*) from notifications where status = 'pending'")
        let welcomes = try database.count("select count(*) from notifications where kind = 'welcome'")
        #expect(queued > 2 && welcomes > 0)
        // notify delivered one of them before the undo.
        try connection.execute("update notifications set status = 'sent', sent_at = now() where id = (select min(id) from notifications where status = 'pending')")
        #expect(try database.run(["runs", "--limit", "1"]).stdout.contains(" place "))

        // --no-notify: the membership whose message was sent goes too, and no leader is told.
        let undo = try database.run(["undo", String(run), "--no-notify"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("\(queued - 1) pending notifications cancelled"), "\(undo.stdout)")
        // The welcomes to the students the undo removes go with them; the leaders' are kept, cancelled.
        #expect(try database.count("select count(*) from notifications where kind = 'welcome'") == 0)
        #expect(try database.count("select count(*) from notifications where status = 'cancelled'") == queued - 1 - welcomes)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
        #expect(try database.count("select count(*) from memberships") == memberships)
        #expect(try peopleFingerprint(database) == people)
        #expect(try database.run(["status"]).stdout.contains("\(queued - 1 - welcomes) cancelled"))
    }

    /// A place of the small answers file into the central-coast data (whose own messages count as sent),
    /// and the place's run id.
    private func placed() throws -> (database: TestDatabase, run: Int) {
        let database = try loaded()
        try database.connect().execute("update notifications set status = 'sent', sent_at = now()")
        let answers = TestEnvironment.fixture("get-involved/answers-small.csv")
        return (database, try runID(try database.run(["place", answers, "--format", "json"])))
    }

    /// Delivers the outbox to the SMTP sink, one message per notification.
    private func notify(_ database: TestDatabase) throws {
        let notify = try database.run(["notify", "--smtp-url", try MailSink.url(), "--no-digest"])
        #expect(notify.status == 0, "\(notify.stdout)\(notify.stderr)")
    }

    /// The (membership, leader) pairs of a kind of message about the memberships a place added.
    private func told(_ database: TestDatabase, _ kind: String, _ status: String) throws -> [[String?]] {
        try database.connect().query("""
            select membership_id::text, recipient_id::text from notifications
            where kind = \(kind) and status = \(status)
            and membership_id in (select id from memberships where source = 'place')
            order by 1, 2
            """).texts
    }

    @Test("undo of a place whose messages were sent names them; each leader told gets a left, which notify sends")
    func undoSentPlace() throws {
        let (database, run) = try placed()
        try notify(database)
        let joined = try told(database, "joined", "sent")
        let welcomes = try database.count(
            "select count(*) from notifications where kind = 'welcome' and status = 'sent'")
        #expect(!joined.isEmpty && welcomes > 0)

        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("already sent: \(welcomes) welcome, \(joined.count) joined"), "\(undo.stdout)")
        #expect(undo.stdout.contains("\(joined.count) left notification"), "\(undo.stdout)")
        // Each leader told of a join is told of the leave; the students are no longer members.
        #expect(try told(database, "left", "pending") == joined)
        #expect(try database.count("select count(*) from memberships where source = 'place' and status <> 'left'") == 0)

        let expected = try database.connect().query("""
            select n.id, l.email, s.first_name || ' ' || s.last_name || ' left ' || g.name
            from notifications n join people l on l.id = n.recipient_id join memberships m on m.id = n.membership_id
            join people s on s.id = m.person_id join community_groups g on g.id = m.group_id
            where n.kind = 'left' and n.status = 'pending' order by n.id
            """).texts
        try notify(database)
        #expect(try told(database, "left", "sent") == joined)
        for row in expected {
            let mail = try #require(try MailSink.message(withID: "notification-\(row[0]!).\(database.name)@crubatch"))
            #expect(mail.header("To")?.contains(row[1]!) == true, "\(mail.header("To") ?? "")")
            #expect(mail.header("Subject") == row[2])
        }
    }

    @Test("undo --no-notify of a place whose messages were sent still names them in JSON, and queues no left")
    func undoSentPlaceQuietly() throws {
        let (database, run) = try placed()
        try notify(database)
        let joined = try told(database, "joined", "sent").count
        let welcomes = try database.count(
            "select count(*) from notifications where kind = 'welcome' and status = 'sent'")
        let memberships = try database.count("select count(*) from memberships where source = 'place'")
        #expect(memberships > 0)

        let undo = try database.run(["undo", String(run), "--no-notify", "--format", "json"])
        #expect(undo.status == 0, "\(undo.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(undo.stdout.utf8)) as? [String: Any])
        #expect(report["already_sent"] as? [String: Int] == ["welcome": welcomes, "joined": joined])
        #expect(report["left_queued"] as? Int == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'left'") == 0)
        #expect(try database.count("select count(*) from memberships where source = 'place'") == 0)
    }

    @Test("undo of a place whose messages were not sent cancels them and queues no left")
    func undoUnsentPlace() throws {
        let (database, run) = try placed()
        let pending = try database.count("select count(*) from notifications where status = 'pending'")
        let undo = try database.run(["undo", String(run), "--format", "json"])
        #expect(undo.status == 0, "\(undo.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(undo.stdout.utf8)) as? [String: Any])
        #expect(report["already_sent"] as? [String: Int] == [:])
        #expect(report["left_queued"] as? Int == 0)
        #expect(report["notifications_cancelled"] as? Int == pending)
        #expect(try database.count("select count(*) from notifications where kind = 'left'") == 0)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
    }

    @Test("undo of a sync brings the archived groups back")
    func undoSync() throws {
        let database = try loaded()
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/groups.csv"), encoding: .utf8)
            .split(separator: "\n")
        let file = try write(lines.dropLast(3).joined(separator: "\n") + "\n", "groups.csv")
        let sync = try database.run(["import", "groups", file, "--sync", "--format", "json"])
        #expect(try database.count("select count(*) from community_groups where archived_at is not null") == 3)
        let shown = try database.run(["runs", "show", String(try runID(sync))])
        #expect(shown.stdout.contains("community_groups        3"), "\(shown.stdout)")
        #expect(shown.stdout.contains("archive"))
        #expect(try database.run(["undo", String(try runID(sync))]).status == 0)
        #expect(try database.count("select count(*) from community_groups where archived_at is not null") == 0)
    }
}
