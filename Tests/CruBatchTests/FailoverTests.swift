import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// A primary dies and its synchronous standby takes over (`pg_autoctl perform failover`) while
/// crubatch works: nothing is lost or done twice, and each command ends as documented.
@Suite("database failover", .serialized, .enabled(if: HACluster.isAvailable, Comment(rawValue: HACluster.unavailableReason)))
struct FailoverTests {
    private let scratch = ScratchDirectory()

    /// A campus, a ministry, a leader and an open group: what students and their joins need.
    private func ministry(in folder: String) throws {
        try scratch.writeFile("\(folder)/campuses.csv", "code,name\nslo,San Luis Obispo\n")
        try scratch.writeFile("\(folder)/ministries.csv", "code,name,campus\ncru-slo,Cru SLO,slo\n")
        try scratch.writeFile("\(folder)/leaders.csv",
                              "email,first_name,last_name,phone,campus\nlea.leader@example.edu,Lea,Leader,805-555-0100,slo\n")
        try scratch.writeFile("\(folder)/groups.csv", "code,ministry,name,leaders\nslo-all,cru-slo,Everyone,lea.leader@example.edu\n")
    }

    /// `count` students with `lastName`; with `joining`, a memberships file putting each in that group.
    @discardableResult
    private func students(_ count: Int, lastName: String, in folder: String, joining group: String? = nil) throws -> String {
        var text = "email,first_name,last_name,phone,campus\n"
        var joins = "group,email\n"
        for index in 0..<count {
            text += "student\(index)@example.edu,First\(index),\(lastName),805-555-\(1000 + index % 9000),slo\n"
            if let group { joins += "\(group),student\(index)@example.edu\n" }
        }
        if group != nil { try scratch.writeFile("\(folder)/memberships.csv", joins) }
        return try scratch.writeFile("\(folder)/students.csv", text)
    }

    /// A database on the HA cluster holding a ministry and `count` students (with `joining`, also
    /// their joins of that group), loaded with `import --dir`.
    private func loadedDatabase(_ count: Int, lastName: String, joining group: String? = nil) throws -> HADatabase {
        let database = try HADatabase()
        try ministry(in: "load")
        try students(count, lastName: lastName, in: "load", joining: group)
        let load = try database.run(["import", "--dir", scratch.folder("load")])
        try #require(load.status == 0, "\(load.stderr)")
        return database
    }

    /// Waits for the statement of a crubatch process matching `pattern` to wait for a lock on the primary.
    private func waitForLockWait(_ database: HADatabase, _ pattern: String) -> Bool {
        waitUntil(timeout: 30) {
            (try? database.count("""
                select count(*) from pg_stat_activity where datname = current_database()
                and application_name = 'crubatch' and wait_event_type = 'Lock' and query like \(pattern)
                """)) == 1
        }
    }

    @Test("an import caught by a failover exits 75 with nothing committed, and the same command then loads on the new primary")
    func importDuringFailover() throws {
        let database = try loadedDatabase(2_000, lastName: "Before")
        let changed = try students(2_000, lastName: "After", in: "changed")

        let holder = try database.connect()
        try holder.execute("begin")
        try holder.query("select id from people where email = 'student1999@example.edu' for update")
        let importing = try database.start(["import", "students", changed])
        try #require(waitForLockWait(database, "%update people%"), "the import never waited for the held row")
        try HACluster.failover()
        let caught = try importing.finish()
        #expect(caught.status == 75, "\(caught.stderr)")
        #expect(caught.stderr.contains("failed over"), "\(caught.stderr)")
        #expect(try database.count("select count(*) from people where last_name = 'After'") == 0)

        let again = try database.run(["import", "students", changed])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try database.count("select count(*) from people where last_name = 'After'") == 2_000)
    }

    @Test("notify sends 2,000 messages through a failover: it reconnects, and each message reaches the sink once")
    func notifyDuringFailover() throws {
        let database = try loadedDatabase(2_000, lastName: "Member", joining: "slo-all")
        let due = "select count(*) from notifications where kind = 'joined'"
        try #require(try database.count(PostgresQuery(stringLiteral: due)) == 2_000)

        let notifying = try database.start(["notify", "--no-digest", "--format", "json"],
                                           environment: ["CRUBATCH_SMTP_URL": try MailSink.url()])
        try #require(waitUntil(timeout: 60) {
            (try? database.count("select count(*) from notifications where status = 'sent'")) ?? 0 >= 100
        }, "notify never got going")
        try HACluster.failover()
        let result = try notifying.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect((report?["reconnections"] as? Int ?? 0) >= 1, "\(result.stdout)")

        #expect(try database.count("select count(*) from notifications where status = 'sent'") == 2_000)
        let ids = try database.connect().query("select message_id from notifications order by id").rows
            .map { try $0.decode(String.self, 0) }
        let received = try MailSink.messages(containing: ".\(database.name)@").compactMap { $0.raw("Message-ID") }
        #expect(received.count == 2_000, "the sink holds \(received.count) messages for 2,000 notifications")
        let missing = Set(ids.map { "<\($0)>" }).subtracting(received)
        #expect(missing.isEmpty, "\(missing.count) sent notifications never reached the sink, e.g. \(missing.prefix(3))")
    }

    @Test("notify --watch lives through a failover: joins made on the new primary are delivered, each once")
    func watchDuringFailover() throws {
        let database = try loadedDatabase(40, lastName: "Later")

        let watching = try database.start(["notify", "--watch", "--no-digest", "--poll", "1"],
                                          environment: ["CRUBATCH_SMTP_URL": try MailSink.url()])
        try #require(waitUntil(timeout: 30) { (try? watching.stderrSoFar().contains("watching")) == true })
        try HACluster.failover()
        try students(40, lastName: "Later", in: "joins", joining: "slo-all")
        let joins = try database.run(["import", "memberships", scratch.folder("joins") + "/memberships.csv"])
        try #require(joins.status == 0, "\(joins.stderr)")
        let delivered = waitUntil(timeout: 90) {
            (try? database.count("select count(*) from notifications where status = 'sent'")) == 40
        }
        watching.terminate()
        let result = try watching.finish()
        #expect(delivered, "\(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        let received = try MailSink.messages(containing: ".\(database.name)@").compactMap { $0.raw("Message-ID") }
        #expect(received.count == 40 && Set(received).count == 40, "the sink holds \(received.count) messages for 40 joins")
    }

    @Test("a nightly caught by a failover exits 75 and leaves no dated or partial folder; the next run writes it")
    func nightlyDuringFailover() throws {
        let database = try HADatabase()
        let load = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")])
        try #require(load.status == 0, "\(load.stderr)")
        let out = try scratch.folder("exports")

        // A schema change under way holds the export's first read until the failover ends the session.
        let holder = try database.connect()
        try holder.execute("begin")
        try holder.execute("lock table people in access exclusive mode")
        let nightly = try database.start(["nightly", "--out", out, "--date", "2026-11-20"])
        try #require(waitForLockWait(database, "%"), "nightly never waited for the locked table")
        try HACluster.failover()
        let caught = try nightly.finish()
        #expect(caught.status == 75, "\(caught.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        #expect(left.filter { $0.contains("2026-11-20") } == [], "\(left)")

        let again = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/2026-11-20/manifest.json"))
    }

    @Test("exports read from the standby with --read-only-url equal the primary's byte for byte")
    func standbyExport() throws {
        let database = try HADatabase()
        let load = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")])
        try #require(load.status == 0, "\(load.stderr)")
        let standby = try HACluster.standbyURL(for: database.name)
        // The standby has flushed every commit (synchronous replication); wait until it has replayed it.
        let primaryLSN = try database.connect().query("select pg_current_wal_lsn()::text").scalar(String.self)
        try #require(try waitUntil(timeout: 30) {
            try PostgresConnection(standby).query("select pg_last_wal_replay_lsn() >= \(primaryLSN)::pg_lsn")
                .scalar(Bool.self)
        })
        for kind in ["campuses", "ministries", "students", "leaders", "groups", "memberships", "events", "ride-offers"] {
            let fromPrimary = try database.run(["export", "kind", kind])
            let fromStandby = try database.run(["export", "kind", kind, "--read-only-url", standby])
            #expect(fromPrimary.status == 0 && fromStandby.status == 0, "\(fromStandby.stderr)")
            #expect(fromStandby.stdout == fromPrimary.stdout, "\(kind)")
            #expect(!fromPrimary.stdout.isEmpty)
        }
        let primaryNight = try database.run(["nightly", "--out", scratch.folder("primary"), "--date", "2026-11-21"])
        let standbyNight = try database.run(["nightly", "--out", scratch.folder("standby"), "--date", "2026-11-21",
                                             "--read-only-url", standby])
        #expect(primaryNight.status == 0 && standbyNight.status == 0, "\(standbyNight.stderr)")
        let manifest = { (folder: String) throws -> String in
            try String(contentsOfFile: try self.scratch.folder(folder) + "/2026-11-21/manifest.json", encoding: .utf8)
        }
        #expect(try manifest("standby") == manifest("primary"))
    }
}
