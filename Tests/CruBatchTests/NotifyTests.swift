import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

extension MailSink {
    /// The messages notify sent from one database: their Message-IDs end with `.<database>@crubatch>`.
    static func messages(for database: TestDatabase) throws -> [ParsedMail] {
        try messages(containing: ".\(database.name)@crubatch>")
    }
}

@Suite("notify")
struct NotifyTests {
    private let scratch = ScratchDirectory()

    /// A database with central-coast loaded and `count` new students joined to cp-small-tue's
    /// leaders' new uncapped group; returns the database and the students' emails.
    private func databaseWithJoins(_ count: Int, leaders: Int = 2) throws -> (TestDatabase, [String]) {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        try connection.script("""
            insert into community_groups (code, ministry_id, name, meeting_day, meeting_time, location, sex)
            select 'notify-test', ministry_id, 'Notify Test Group', 'Tuesday', '19:00', 'Dexter Lawn', 'mixed'
            from community_groups where code = 'cp-small-tue';
            insert into group_leaders (group_id, person_id, position)
            select (select id from community_groups where code = 'notify-test'), gl.person_id, gl.position
            from group_leaders gl join community_groups g on g.id = gl.group_id
            where g.code = 'cp-small-tue' order by gl.position limit \(leaders);
            """)
        let emails = (0..<count).map { "joiner\($0)@example.edu" }
        var csv = "email,first_name,last_name,phone,school_year\n"
        var memberships = "group,email\n"
        for (index, email) in emails.enumerated() {
            csv += "\(email),Joiner\(index),Student,805-555-\(String(1000 + index)),\(1 + index % 5)\n"
            memberships += "notify-test,\(email)\n"
        }
        let folder = try scratch.folder(database.name)
        try writeFile(folder + "/students.csv", csv)
        try writeFile(folder + "/memberships.csv", memberships)
        // Only the new joins should be pending: mark central-coast's own as sent already.
        try connection.execute("update notifications set status = 'sent', sent_at = now()")
        let joins = try database.run(["import", "--dir", folder])
        try #require(joins.status == 0, "\(joins.stderr)")
        return (database, emails)
    }

    private func notify(_ database: TestDatabase, _ arguments: [String] = [], smtp: String? = nil) throws -> CommandResult {
        try database.run(["notify", "--smtp-url", try smtp ?? MailSink.url()] + arguments)
    }

    @Test("10 joins into a group with 2 leaders: exactly 20 messages, each about its student; a second run sends none")
    func tenJoinsTwentyMessages() throws {
        let (database, emails) = try databaseWithJoins(10)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 20)
        let first = try notify(database, ["--no-digest"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("sent 20"))
        let messages = try MailSink.messages(for: database)
        #expect(messages.count == 20)
        for email in emails {
            let about = messages.filter { $0.body.contains("Email:       \(email)") }
            #expect(about.count == 2, "\(email)")
            for message in about {
                let others = emails.filter { $0 != email && message.body.contains($0) }
                #expect(others.isEmpty, "a message about \(email) mentions \(others)")
                #expect(message.body.contains("Notify Test Group"))
                #expect(message.body.contains("Phone:       (805) 555-1"))
            }
        }
        let leaders = Set(messages.compactMap { $0.raw("To") })
        #expect(leaders.count == 2)
        #expect(try database.count("select count(*) from notifications where status = 'sent' and message_id is not null and attempts = 1") >= 20)

        let second = try notify(database)
        #expect(second.status == 0)
        #expect(second.stderr.contains("sent 0"))
        #expect(try MailSink.messages(for: database).count == 20)

        // Re-inserting the same membership notifies nobody again.
        let connection = try database.connect()
        try connection.execute("""
            insert into memberships (group_id, person_id) select group_id, person_id from memberships
            where group_id = (select id from community_groups where code = 'notify-test') on conflict do nothing
            """)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
    }

    @Test("two notify processes at once on 1,000 pending rows deliver every message exactly once")
    func twoProcessesExactlyOnce() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.script("""
            insert into campuses (code, name) values ('c', 'Campus');
            insert into ministries (code, name, campus_id) values ('m', 'Ministry', (select id from campuses));
            insert into people (email, first_name, last_name, phone, is_leader) values ('lead@example.org', 'Lee', 'Der', '+18055550100', true);
            insert into community_groups (code, ministry_id, name) values ('g', (select id from ministries), 'Big Group');
            insert into group_leaders (group_id, person_id) select g.id, p.id from community_groups g, people p;
            insert into people (email, first_name, last_name) select 's' || i || '@example.edu', 'S' || i, 'Tudent' from generate_series(1, 1000) i;
            insert into memberships (group_id, person_id) select g.id, p.id from community_groups g, people p where not p.is_leader;
            """)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 1000)
        let url = try MailSink.url()
        let notifiers = try (0..<2).map { _ in try database.start(["notify", "--no-digest", "--smtp-url", url]) }
        for notifier in notifiers {
            #expect(try notifier.finish().status == 0)
        }
        let messages = try MailSink.messages(for: database)
        let ids = messages.compactMap { $0.raw("Message-ID") }
        #expect(messages.count == 1000)
        #expect(Set(ids).count == 1000)
        #expect(try database.count("select count(*) from notifications where status = 'sent' and attempts = 1") == 1000)
    }

    @Test("SMTP down: rows postponed, attempts unchanged; SMTP back: delivered; refused too often: dead and listed")
    func retriesAndDead() throws {
        let (database, _) = try databaseWithJoins(2, leaders: 1)
        let down = try notify(database, [], smtp: "smtp://127.0.0.1:1")
        #expect(down.status == 69, "\(down.stderr)")
        #expect(down.stderr.contains("could not reach the SMTP server"))
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0 and next_attempt_at > now() and last_error is not null") == 2)
        #expect(try MailSink.messages(for: database).isEmpty)

        // Not due yet: nothing happens even though the server is back.
        #expect(try notify(database).stderr.contains("sent 0"))
        // Time passes.
        try database.connect().execute("update notifications set next_attempt_at = now() where status = 'pending'")
        let back = try notify(database)
        #expect(back.status == 0)
        #expect(try MailSink.messages(for: database).count == 2)
        #expect(try database.count("select count(*) from notifications where status = 'sent' and attempts = 1") == 2)

        let (deadDatabase, _) = try databaseWithJoins(1, leaders: 1)
        let busy = try FaultySMTPServer([.init(.rcpt, .reply("450 4.2.1 mailbox busy, try later"))])
        let statuses = try (0..<2).map { _ in
            defer { try? deadDatabase.connect().execute("update notifications set next_attempt_at = now() where status = 'pending'") }
            return try notify(deadDatabase, ["--max-attempts", "2"], smtp: busy.url()).status
        }
        #expect(statuses == [0, 1]) // retrying, then dead
        #expect(try deadDatabase.count("select count(*) from notifications where status = 'dead' and attempts = 2") == 1)
        let status = try deadDatabase.run(["status"])
        #expect(status.stdout.contains("1 dead"))
        #expect(status.stdout.contains("after 2 attempts"))
    }

    @Test("a wrong SMTP password exits 78: no row failed, every row still pending with its attempts unchanged")
    func wrongPassword() throws {
        let (database, _) = try databaseWithJoins(3, leaders: 1)
        let server = try FaultySMTPServer(credentials: (user: "notify", password: "right"))
        let result = try notify(database, [], smtp: server.url(userInfo: "notify:wr0ng@"))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("refused the login"))
        #expect(result.stderr.contains("535 5.7.8 Authentication credentials invalid"))
        #expect(!result.stderr.contains("wr0ng"))
        #expect(try database.count("select count(*) from notifications where status = 'failed'") == 0)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0 and next_attempt_at > now() and last_error like '%535%'") == 3)
        #expect(server.logins.count == 1)
        #expect(server.connectionCount == 1)
        #expect(!server.commands.contains { $0.hasPrefix("MAIL") })
    }

    @Test("550 for one recipient fails that notification only; the others are sent")
    func refusedRecipient() throws {
        let (database, _) = try databaseWithJoins(3, leaders: 1)
        let server = try FaultySMTPServer([.init(.rcpt, message: 2, .reply("550 5.1.1 no such user"))])
        let result = try notify(database, [], smtp: server.url())
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("sent 2, failed 1, retrying 0, dead 0, skipped 0"))
        #expect(server.acceptedMessages.count == 2)
        let tried = try database.connect().query("select status, last_error from notifications where attempts = 1 order by id").rows
        #expect(try tried.map { try $0.decode(String.self, 0) } == ["sent", "failed", "sent"])
        #expect(try tried[1].decode(String.self, 1).contains("no such user"))
    }

    @Test("a server silent after the data: notify exits within the SMTP timeout and a second; the row tried has 1 attempt")
    func silentServer() throws {
        let (database, _) = try databaseWithJoins(3, leaders: 1)
        let server = try FaultySMTPServer([.init(.endOfData, .silence)])
        let started = Date()
        let result = try notify(database, [], smtp: server.url(query: "?timeout=2"))
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(elapsed >= 2 && elapsed < 3.5, "notify took \(elapsed) s")
        #expect(result.stderr.contains("(after the message data)"))
        #expect(result.stderr.contains("2 postponed"))
        #expect(server.events.filter { $0.event == "message" }.count == 1)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 1 and next_attempt_at > now()") == 1)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0 and next_attempt_at > now()") == 2)
    }

    /// notify claims several notifications at once, yet commits each message as it is sent: killed
    /// while the server holds the third message, the first two stay sent and the rest pending.
    @Test("notify killed in the middle of its messages: those sent before stay sent, the rest stay pending, untried")
    func killedMidRun() throws {
        let (database, _) = try databaseWithJoins(5, leaders: 1)
        let server = try FaultySMTPServer([.init(.endOfData, message: 3, .silence)])
        let running = try database.start(["notify", "--no-digest", "--smtp-url", server.url(query: "?timeout=30")])
        try #require(waitUntil(timeout: 20) { server.events.contains { $0.event == "silence" } },
                     "the server never held the third message")
        running.killHard()
        _ = try running.finish()
        #expect(server.acceptedMessages.count == 2)
        #expect(try database.count("select count(*) from notifications where status = 'sent' and attempts = 1") == 2)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0") == 3)
    }

    @Test("5 messages refused in a row (4xx) stop the run; the rest are postponed, untried")
    func consecutiveFailuresStopTheRun() throws {
        let (database, _) = try databaseWithJoins(7, leaders: 1)
        let server = try FaultySMTPServer([.init(.rcpt, .reply("451 4.7.1 greylisted, try again later"))])
        let result = try notify(database, ["--no-digest"], smtp: server.url())
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("5 messages in a row failed"))
        #expect(result.stderr.contains("greylisted"))
        #expect(server.commands.filter { $0.hasPrefix("RCPT") }.count == Notifier.consecutiveFailureLimit)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 1") == 5)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0 and next_attempt_at > now()") == 2)
    }

    @Test("one run sends all its messages over one SMTP connection")
    func oneConnectionPerRun() throws {
        let (database, _) = try databaseWithJoins(4, leaders: 1)
        let server = try FaultySMTPServer()
        let result = try notify(database, ["--no-digest"], smtp: server.url())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.acceptedMessages.count == 4)
        #expect(server.connectionCount == 1)
        #expect(server.commands.filter { $0.hasPrefix("EHLO") }.count == 1)
    }

    @Test("notify --connections 3 sends 300 messages over up to three SMTP connections at once, each exactly once, and sums them up as one run")
    func severalConnections() throws {
        let (database, _) = try databaseWithJoins(150, leaders: 2)
        let server = try FaultySMTPServer()
        let result = try notify(database, ["--no-digest", "--connections", "3"], smtp: server.url())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("notify: sent 300, failed 0"), "\(result.stderr)")
        let messageIDs = server.acceptedMessages.compactMap { $0.firstMatch(of: /(?im)^Message-ID: *(<[^>]+>)/)?.output.1 }
        #expect(messageIDs.count == 300)
        #expect(Set(messageIDs).count == 300)
        // Each sender claims batches the others have not locked, so the work spreads over them.
        #expect((2...3).contains(server.connectionCount), "\(server.connectionCount) connections")
        #expect(try database.count("select count(*) from notifications where status = 'sent' and kind = 'joined' and sent_at > now() - interval '1 hour'") >= 300)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)

        let refused = try notify(database, ["--connections", "2", "--watch"])
        #expect(refused.status == 64 && refused.stderr.contains("--connections"), "\(refused.stderr)")
    }

    @Test("notify --watch delivers a join inserted by plain SQL within seconds and exits 0 on SIGTERM")
    func watchMode() throws {
        let (database, _) = try databaseWithJoins(0, leaders: 1)
        let watcher = try database.start(["notify", "--watch", "--smtp-url", try MailSink.url()])
        // It says so once connected, just before it starts listening (and then delivers what is due).
        let watching = try waitUntil(timeout: 10) { try watcher.stderrSoFar().contains("watching for new joins") }
        try #require(watching, "notify --watch never said it was watching")
        let connection = try database.connect()
        try connection.execute("""
            insert into memberships (group_id, person_id)
            select (select id from community_groups where code = 'notify-test'), id from people
            where not is_leader order by email limit 1
            """)
        let delivered = try waitUntil(timeout: 2.5) { try MailSink.messages(for: database).count == 1 }
        #expect(delivered, "no message within 2.5 s of the join")
        watcher.terminate()
        let stopped = try watcher.finish()
        #expect(watcher.terminationReason == .exit)
        #expect(stopped.status == 0)
    }

    @Test("--digest sends one message per leader; opted-out leaders are skipped; stdout previews change nothing")
    func digestOptOutPreview() throws {
        let (database, emails) = try databaseWithJoins(3, leaders: 2)
        let connection = try database.connect()
        try connection.execute("""
            update people set notifications_opt_out = true where id = (
                select gl.person_id from group_leaders gl join community_groups g on g.id = gl.group_id
                where g.code = 'notify-test' order by gl.position desc limit 1)
            """)
        let preview = try database.run(["notify", "--transport", "stdout", "--digest"])
        #expect(preview.status == 0)
        #expect(preview.stdout.contains("Subject: 3 new members in your community groups"))
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 6)

        let result = try notify(database, ["--digest"])
        #expect(result.status == 0, "\(result.stderr)")
        let messages = try MailSink.messages(for: database)
        #expect(messages.count == 1)
        for email in emails { #expect(messages[0].body.contains(email)) }
        #expect(try database.count("select count(*) from notifications where status = 'skipped'") == 3)
        #expect(try database.count("select count(*) from notifications where status = 'sent'") >= 3)
    }
}
