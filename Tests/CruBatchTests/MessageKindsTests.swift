import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("notify: joined, welcome and left messages")
struct MessageKindsTests {
    private let scratch = ScratchDirectory()

    /// A database with one group per element of `groups` (`g0`, `g1` ..., meeting Tuesdays at 19:00),
    /// each with that many leaders and students joined: every join's notifications pending.
    private func outbox(_ groups: [(leaders: Int, students: Int)]) throws -> TestDatabase {
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.script("""
            insert into campuses (code, name) values ('c', 'Campus');
            insert into ministries (code, name, campus_id) values ('m', 'Ministry', (select id from campuses));
            """)
        for (index, group) in groups.enumerated() {
            try connection.script("""
                insert into community_groups (code, ministry_id, name, meeting_day, meeting_time, location)
                values ('g\(index)', (select id from ministries), 'Group \(index)', 'Tuesday', '19:00', 'Dexter Lawn');
                insert into people (email, first_name, last_name, phone, is_leader)
                select 'lead\(index)-' || i || '@example.org', 'Zoë\(index)' || i, 'Leader', '+180555501' || lpad(i::text, 2, '0'), true
                from generate_series(1, \(group.leaders)) i;
                insert into group_leaders (group_id, person_id, position)
                select g.id, p.id, (row_number() over (order by p.email))::smallint from community_groups g, people p
                where g.code = 'g\(index)' and p.email like 'lead\(index)-%';
                insert into people (email, first_name, last_name, phone)
                select 's\(index)-' || i || '@example.edu', 'S\(index)' || i, 'Tudent', '+180555502' || lpad(i::text, 2, '0')
                from generate_series(1, \(group.students)) i;
                insert into memberships (group_id, person_id) select g.id, p.id from community_groups g, people p
                where g.code = 'g\(index)' and p.email like 's\(index)-%';
                """)
        }
        return database
    }

    private func notify(_ database: TestDatabase, _ arguments: [String] = [], smtp: String? = nil,
                        environment: [String: String] = [:]) throws -> CommandResult {
        try database.run(["notify", "--smtp-url", try smtp ?? MailSink.url()] + arguments, environment: environment)
    }


    @Test("place sends one welcome per placed student and each leader's joined, exactly once with two notify processes; every message parses strictly, with its Reply-To")
    func placeEndToEnd() throws {
        let database = try TestDatabase()
        let backfill = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--no-notify"])
        try #require(backfill.status == 0, "\(backfill.stderr)")
        let place = try database.run(["place", TestEnvironment.fixture("get-involved/answers.csv")])
        #expect(place.status == 1, "\(place.stderr)")
        #expect(place.stdout.contains("leader notifications and 209 welcomes queued"), "\(place.stdout)")
        let welcomes = try database.count("select count(*) from notifications where kind = 'welcome' and status = 'pending'")
        let joins = try database.count("select count(*) from notifications where kind = 'joined' and status = 'pending'")
        let leaderRows = try database.count("""
            select count(*) from memberships m join group_leaders gl on gl.group_id = m.group_id where m.source = 'place'
            """)
        #expect(welcomes == 209)
        #expect(joins == leaderRows && joins > 209)

        let url = try MailSink.url()
        let notifiers = try (0..<2).map { _ in try database.start(["notify", "--no-digest", "--smtp-url", url]) }
        for notifier in notifiers {
            let result = try notifier.finish()
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try database.count("select count(*) from notifications where status = 'sent' and attempts = 1") == welcomes + joins)
        let mails = try StrictMail.parse(try MailSink.rawMessages(containing: ".\(database.name)@crubatch>"))
        #expect(mails.count == welcomes + joins)
        #expect(Set(mails.compactMap(\.notificationID)).count == welcomes + joins)

        // Each message goes to its recipient and replies reach the student (a leader's message) or
        // the group's first leader (a student's).
        let expected = try database.connect().query("""
            select n.id, n.kind, r.email,
                   case n.kind when 'joined' then s.email
                        else (select l.email from group_leaders gl join people l on l.id = gl.person_id
                              where gl.group_id = m.group_id order by gl.position, l.email limit 1) end,
                   g.name
            from notifications n join people r on r.id = n.recipient_id join memberships m on m.id = n.membership_id
            join people s on s.id = m.person_id join community_groups g on g.id = m.group_id
            where n.status = 'sent'
            """).rows
        var byID: [Int: [String?]] = [:]
        for row in expected { byID[try row.decode(Int.self, 0)] = (1..<5).map { row[$0] } }
        for mail in mails {
            let want = try #require(mail.notificationID.flatMap { byID[$0] }, "\(mail.subject)")
            #expect(mail.to == [want[1]!])
            #expect(mail.replyTo == [want[2]!], "\(mail.subject)")
            if want[0] == "welcome" {
                #expect(mail.subject == "Welcome to \(want[3]!)")
                #expect(mail.body.contains("Your leaders:") && mail.body.contains(want[2]!))
                #expect(mail.body.contains("Phone: (805) 555-"), "leaders' phones are written for people")
                #expect(!mail.body.contains("+1805"))
            } else {
                #expect(mail.subject.hasSuffix(" joined \(want[3]!)"))
            }
        }
    }

    @Test("one statement adding members queues each one's joined, per leader, then welcome in the members' order, nothing for one who has left, and wakes notify once")
    func joinsOfOneStatement() throws {
        let database = try outbox([(leaders: 2, students: 0)])
        let listener = try database.connect()
        try listener.listen("crubatch_notifications")
        try database.connect().script("""
            insert into people (email, first_name, last_name, phone)
            select 'n' || i || '@example.edu', 'N' || i, 'Ew', '+1805555030' || i from generate_series(1, 3) i;
            begin;
            select set_config('crubatch.welcome', 'on', true);
            insert into memberships (group_id, person_id, status)
            select g.id, p.id, case p.email when 'n2@example.edu' then 'left' else 'active' end
            from community_groups g, people p where g.code = 'g0' and p.email like 'n_@example.edu' order by p.email desc;
            commit;
            """)
        var wakeUps = try listener.waitForNotifications(timeout: 10)
        wakeUps += try listener.waitForNotifications(timeout: 0.5)
        #expect(wakeUps.count == 1, "\(wakeUps)")
        let queued = try database.connect().query("""
            select string_agg(n.kind || ' ' || s.email || ' to ' || r.email || ' ' || n.status || ' '
                              || (n.dedupe_key = n.kind || ':' || m.id || ':' || r.id)::text, ', ' order by n.id)
            from notifications n join memberships m on m.id = n.membership_id
            join people s on s.id = m.person_id join people r on r.id = n.recipient_id
            """).scalar(String.self)
        #expect(queued == """
            joined n3@example.edu to lead0-1@example.org pending true, joined n3@example.edu to lead0-2@example.org pending true, \
            welcome n3@example.edu to n3@example.edu pending true, \
            joined n1@example.edu to lead0-1@example.org pending true, joined n1@example.edu to lead0-2@example.org pending true, \
            welcome n1@example.edu to n1@example.edu pending true
            """)
    }

    @Test("a backfill with --no-notify queues only suppressed rows that are never sent; a later real join is sent, with --welcome its welcome too")
    func backfillSendsNothing() throws {
        let database = try TestDatabase()
        let backfill = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--no-notify"])
        try #require(backfill.status == 0, "\(backfill.stderr)")
        let suppressed = try database.count("select count(*) from notifications where status = 'suppressed'")
        let leaderRows = try database.count("""
            select count(*) from memberships m join group_leaders gl on gl.group_id = m.group_id where m.status <> 'left'
            """)
        #expect(suppressed == leaderRows && suppressed > 400)
        #expect(try database.count("select count(*) from notifications where status <> 'suppressed'") == 0)

        let run = try notify(database, ["--now"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("sent 0,"))
        #expect(try MailSink.messages(for: database).isEmpty)
        let status = try database.run(["status"])
        #expect(status.stdout.contains(", \(suppressed) suppressed"), "\(status.stdout)")
        #expect(status.stdout.contains("  joined: \(suppressed) suppressed"), "\(status.stdout)")

        // A real join afterwards, with --welcome: each leader is told, and so is the student.
        let student = try #require(try database.connect().query("""
            select p.email from people p where not p.is_leader and not exists (
                select 1 from memberships m join community_groups g on g.id = m.group_id
                where m.person_id = p.id and g.code = 'cp-small-tue') order by p.email limit 1
            """).text)
        let file = try scratch.writeFile("joins.csv", "group,email\ncp-small-tue,\(student)\n")
        let join = try database.run(["import", "memberships", file, "--welcome"])
        #expect(join.status == 0, "\(join.stderr)")
        let leaders = try database.connect().query("""
            select p.email from group_leaders gl join community_groups g on g.id = gl.group_id join people p on p.id = gl.person_id
            where g.code = 'cp-small-tue' order by gl.position, p.email
            """).rows.map { try $0.decode(String.self, 0) }
        let sent = try notify(database)
        #expect(sent.status == 0, "\(sent.stderr)")
        let mails = try StrictMail.parse(try MailSink.rawMessages(containing: ".\(database.name)@crubatch>"))
        #expect(mails.count == leaders.count + 1)
        #expect(Set(mails.filter { $0.subject.contains(" joined ") }.flatMap(\.to)) == Set(leaders))
        let welcome = try #require(mails.first { $0.subject.hasPrefix("Welcome to ") })
        #expect(welcome.to == [student])
        #expect(welcome.replyTo == [leaders[0]])
        #expect(try database.count("select count(*) from notifications where status = 'suppressed'") == suppressed)
    }

    @Test("place --no-notify records its messages as suppressed; --no-welcome queues only the leaders'")
    func placeFlags() throws {
        let database = try TestDatabase()
        try #require(try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--no-notify"]).status == 0)
        let quiet = try database.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"), "--no-notify"])
        #expect(quiet.stdout.contains("8 leader notifications and 7 welcomes recorded as suppressed (--no-notify)"),
                "\(quiet.stdout)")
        #expect(try database.count("select count(*) from notifications where status <> 'suppressed'") == 0)
        #expect(try notify(database, ["--now"]).stderr.contains("sent 0,"))
        #expect(try MailSink.messages(for: database).isEmpty)

        let other = try TestDatabase()
        try #require(try other.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--no-notify"]).status == 0)
        let leadersOnly = try other.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv"), "--no-welcome"])
        #expect(leadersOnly.stdout.contains("8 leader notifications and 0 welcomes queued"), "\(leadersOnly.stdout)")
        #expect(try other.count("select count(*) from notifications where kind = 'joined' and status = 'pending'") == 8)
        #expect(try other.count("select count(*) from notifications where kind = 'welcome'") == 0)
    }

    @Test("a membership that ends sends exactly one left message per leader; a join still unsent when it ends sends nothing")
    func leaveTellsEachLeaderOnce() throws {
        let database = try outbox([(leaders: 2, students: 2)])
        #expect(try notify(database).status == 0)
        let connection = try database.connect()
        try connection.execute("""
            update memberships set status = 'left' where person_id = (select id from people where email = 's0-1@example.edu')
            """)
        #expect(try database.count("select count(*) from notifications where kind = 'left' and status = 'pending'") == 2)
        let first = try notify(database)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try notify(database, ["--now"])
        #expect(second.stderr.contains("sent 0,"))
        let left = try StrictMail.parse(try MailSink.rawMessages(containing: ".\(database.name)@crubatch>"))
            .filter { $0.subject == "S01 Tudent left Group 0" }
        #expect(left.count == 2)
        #expect(Set(left.flatMap(\.to)) == ["lead0-1@example.org", "lead0-2@example.org"])
        #expect(left.allSatisfy { $0.replyTo == ["s0-1@example.edu"] && $0.body.contains("Hi Zoë0") })

        // Joined and left before notify ran: the leaders hear of neither.
        try connection.script("""
            insert into people (email, first_name, last_name) values ('brief@example.edu', 'Brief', 'Visit');
            insert into memberships (group_id, person_id)
            select g.id, p.id from community_groups g, people p where g.code = 'g0' and p.email = 'brief@example.edu';
            update memberships set status = 'left' where person_id = (select id from people where email = 'brief@example.edu');
            """)
        #expect(try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id join people p on p.id = m.person_id
            where p.email = 'brief@example.edu' and (n.status = 'pending' or n.kind = 'left')
            """) == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'joined' and status = 'cancelled'") == 2)
    }

    @Test("a templates folder's subject is the subject sent; a template with an unknown field is refused with file and line, and nothing is sent")
    func templatesFolder() throws {
        let database = try outbox([(leaders: 1, students: 1)])
        let good = try scratch.folder("good")
        try writeFile(good + "/joined.mustache", """
            Subject: New in {{group_name}}: {{student_first_name}}

            Hi {{leader_first_name}}, {{student_name}} joined. Write to {{student_email}}.
            """)
        let preview = try database.run(["notify", "--preview", "joined", "--templates", good])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("Subject: New in Group 0: S01\n"))
        #expect(preview.stdout.contains("Hi Zoë01, S01 Tudent joined."), "decoded, not quoted-printable")
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 1)

        let sent = try notify(database, ["--templates", good])
        #expect(sent.status == 0, "\(sent.stderr)")
        let mails = try MailSink.messages(for: database)
        #expect(mails.map { $0.header("Subject") } == ["New in Group 0: S01"])

        try database.connect().script("""
            insert into people (email, first_name, last_name) values ('late@example.edu', 'Late', 'Comer');
            insert into memberships (group_id, person_id) select g.id, p.id from community_groups g, people p
            where p.email = 'late@example.edu';
            """)
        let bad = try scratch.folder("bad")
        try writeFile(bad + "/left.mustache", "Subject: gone\n\nHi {{leader_first_name}},\n{{student_nickname}} left.\n")
        let refused = try notify(database, environment: ["CRUBATCH_TEMPLATES": bad])
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad)/left.mustache:4:1: unknown field \"student_nickname\""), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was sent"))
        let json = try notify(database, ["--templates", bad, "--format", "json"])
        #expect((try jsonObject(json.stdout)["error"] as? [String: Any])?["code"] as? String == "invalid-template")
        #expect(try MailSink.messages(for: database).count == 1)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0") == 1)
    }

    @Test("--transport stdout prints decoded messages and says previewed, not sent; --preview KIND changes nothing")
    func previewIsReadable() throws {
        let database = try outbox([(leaders: 1, students: 2)])
        let preview = try database.run(["notify", "--transport", "stdout"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("Hi Zoë01,"))
        #expect(preview.stdout.contains("Reply-To: S01 Tudent <s0-1@example.edu>"))
        #expect(preview.stdout.contains("  Phone:       (805) 555-0201"))
        #expect(!preview.stdout.contains("=C3=AB") && !preview.stdout.contains("=?UTF-8?"))
        #expect(preview.stderr.contains("previewed 2 (nothing sent or marked)"), "\(preview.stderr)")
        #expect(!preview.stderr.contains("sent 2"))
        let none = try database.run(["notify", "--preview", "welcome"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no welcome notification to preview"))
        let unknown = try database.run(["notify", "--preview", "greeting"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("joined, welcome, left"))
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0") == 2)
    }

    @Test("after a failed run notify says when the next retry is due (text and JSON); --now sends what waits")
    func nextRetryAndNow() throws {
        let database = try outbox([(leaders: 1, students: 2)])
        let down = try notify(database, [], smtp: "smtp://127.0.0.1:1")
        #expect(down.status == 69)
        #expect(down.stderr.contains("2 postponed"))
        #expect(down.stderr.contains("; 2 waiting, next retry at "), "\(down.stderr)")

        let waiting = try notify(database)
        #expect(waiting.status == 0)
        #expect(waiting.stderr.contains("sent 0,"))
        #expect(waiting.stderr.contains("2 waiting, next retry at "), "\(waiting.stderr)")
        #expect(waiting.stderr.contains("notify --now tries them now"))
        let report = try jsonObject(try notify(database, ["--format", "json"]).stdout)
        #expect(report["sent"] as? Int == 0)
        #expect(report["waiting"] as? Int == 2)
        #expect((report["next_retry_at"] as? String)?.hasSuffix("Z") == true)
        #expect((report["next_retry_in_seconds"] as? Int ?? 0) > 0)
        #expect(try MailSink.messages(for: database).isEmpty)

        let now = try notify(database, ["--now"])
        #expect(now.status == 0, "\(now.stderr)")
        #expect(now.stderr.contains("sent 2,"))
        #expect(!now.stderr.contains("waiting"))
        #expect(try MailSink.messages(for: database).count == 2)
    }

    @Test("--requeue failed|dead [--since DATE] puts them back to pending with attempts reset, and says how many")
    func requeue() throws {
        let database = try outbox([(leaders: 1, students: 4)])
        let connection = try database.connect()
        try connection.script("""
            update notifications set status = 'dead', attempts = 8, last_error = '450 busy'
            where id in (select id from notifications order by id limit 2);
            update notifications set status = 'failed', attempts = 1, last_error = '550 no such user'
            where id = (select id from notifications order by id offset 2 limit 1);
            select set_config('crubatch.undoing', 'on', false);
            update notifications set updated_at = now() - interval '10 days' where id = (select min(id) from notifications);
            """)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        let since = formatter.string(from: Date(timeIntervalSinceNow: -3 * 86400))
        let recent = try database.run(["notify", "--requeue", "dead", "--since", since])
        #expect(recent.status == 0, "\(recent.stderr)")
        #expect(recent.stdout.contains("requeued 1 dead notification;"), "\(recent.stdout)")
        let rest = try jsonObject(try database.run(["notify", "--requeue", "dead", "--format", "json"]).stdout)
        #expect(rest["requeued"] as? Int == 1)
        #expect(try database.run(["notify", "--requeue", "failed"]).stdout.contains("requeued 1 failed notification;"))
        #expect(try database.count("select count(*) from notifications where status = 'pending' and attempts = 0") == 4)
        #expect(try database.run(["notify", "--requeue", "dead", "--since", "last week"]).status == 64)

        let sent = try notify(database, ["--no-digest"])
        #expect(sent.stderr.contains("sent 4,"), "\(sent.stderr)")
    }

    @Test("a leader with more than --digest-over messages due gets one digest; one with fewer gets each message")
    func digestOver() throws {
        let database = try outbox([(leaders: 1, students: 4), (leaders: 1, students: 2)])
        let result = try notify(database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sent 6 in 3 emails,"), "\(result.stderr)")
        let mails = try MailSink.messages(for: database)
        #expect(mails.count == 3)
        let digest = try #require(mails.first { $0.header("Subject") == "4 new members in your community groups" })
        #expect(digest.raw("To")?.hasSuffix("<lead0-1@example.org>") == true)
        #expect(digest.raw("Reply-To") == nil)
        #expect((1...4).allSatisfy { digest.body.contains("s0-\($0)@example.edu") })
        #expect(mails.filter { $0.header("Subject")?.hasSuffix("joined Group 1") == true }.count == 2)

        let higher = try outbox([(leaders: 1, students: 4)])
        #expect(try notify(higher, ["--digest-over", "4"]).stderr.contains("sent 4,"))
        #expect(try MailSink.messages(for: higher).count == 4)
    }
}
