import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Check-in sheets: who came to which event, walk-ins added as students, `--sync` per event.
@Suite("attendance")
struct AttendanceTests {
    private let scratch = ScratchDirectory()

    static let header = "event,email,first_name,last_name,phone,school_year,checked_in_at\n"

    /// The 40 walk-ins of the big sheet: no email, a name, a phone and a school year.
    static let walkIns: [(first: String, last: String, phone: String, year: Int)] = (0..<40).map { index in
        (["Noah", "Ava", "Mateo", "Grace", "Elijah", "Chloe", "Isaac", "Maya"][index % 8],
         "Walkin\(["Alpha", "Bravo", "Charlie", "Delta", "Echo"][index % 5])\(index)",
         "(805) 555-\(String(format: "%04d", 7000 + index))", index % 4 + 1)
    }

    /// A 300-row sheet: 260 check-ins of known students (130 at each of two events, email only, some
    /// with a time) and 40 walk-ins at the first event.
    static func bigSheet(in database: TestDatabase, scratch: ScratchDirectory) throws -> String {
        let emails = try database.connect().query("""
            select email from people where not is_leader and is_member order by email limit 130
            """).rows.map { try $0.decode(String.self, 0) }
        #expect(emails.count == 130)
        var text = Self.header
        for (index, email) in emails.enumerated() {
            text += "cru-weekly-welcome,\(email.uppercased()),,,,,\(index % 3 == 0 ? "2026-09-24T19:\(10 + index % 40)" : "")\n"
            text += "Epic Mid-Autumn Festival,\(email),,,,,\n"
        }
        for walkIn in Self.walkIns {
            text += "cru-weekly-welcome,,\(walkIn.first),\(walkIn.last),\(walkIn.phone),\(walkIn.year),2026-09-24T19:05\n"
        }
        return try scratch.writeFile("checkin.csv", text)
    }


    /// Every attendance row with its person and times, to prove a re-import changed nothing.
    private func snapshot(_ database: TestDatabase) throws -> [String] {
        try database.connect().query("""
            select a.id || ' ' || e.code || ' ' || p.email || ' ' || a.checked_in_at || ' ' || a.updated_at
                   || ' ' || coalesce(a.archived_at::text, '-') || ' ' || p.updated_at
            from attendance a join events e on e.id = a.event_id join people p on p.id = a.person_id order by a.id
            """).rows.map { try $0.decode(String.self, 0) }
    }

    @Test("a 300-row sheet with 40 walk-ins adds 40 students of the event's campus from the check-in and 300 rows; reading it again changes nothing")
    func bigSheetIsIdempotent() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try Self.bigSheet(in: database, scratch: scratch)
        let people = try database.count("select count(*) from people")
        let first = try database.run(["import", "attendance", file, "--no-notify"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("attendance: added 40 walk-ins as students"), "\(first.stdout)")
        let added = try database.run(["import", "attendance", file, "--dry-run", "--format", "json"])
        let wouldAdd = try #require((try jsonObject(added.stdout)["files"] as? [[String: Any]])?.first)
        #expect(wouldAdd.keys.contains("would_add_people") || wouldAdd.keys.contains("people_added"), "\(wouldAdd)")
        #expect(try database.count("select count(*) from attendance") == 300)
        #expect(try database.count("select count(*) from people") == people + 40)
        #expect(try database.count("""
            select count(*) from people p join campuses c on c.id = p.campus_id
            where p.origin = 'check-in' and c.code = 'calpoly' and p.is_member and not p.is_leader
            """) == 40)
        for walkIn in Self.walkIns {
            #expect(try database.count("""
                select count(*) from attendance a join people p on p.id = a.person_id join events e on e.id = a.event_id
                where e.code = 'cru-weekly-welcome' and p.first_name = \(walkIn.first) and p.last_name = \(walkIn.last)
                and p.school_year = \(walkIn.year) and p.phone = \("+1805555" + String(walkIn.phone.suffix(4)))
                """) == 1, "\(walkIn)")
        }
        // Without a time, a check-in is at the event's start; with one, at that wall-clock time on the campus.
        #expect(try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id
            where e.code = 'epic-mid-autumn' and a.checked_in_at = e.starts_at
            """) == 130)
        #expect(try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id join people p on p.id = a.person_id
            where e.code = 'cru-weekly-welcome' and p.origin = 'check-in'
            and a.checked_in_at = timestamptz '2026-09-24 19:05:00 America/Los_Angeles'
            """) == 40)

        let before = try snapshot(database)
        let again = try database.run(["import", "attendance", file, "--no-notify", "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let files = try #require(try jsonObject(again.stdout)["files"] as? [[String: Any]])
        #expect(files.first?["unchanged"] as? Int == 300, "\(again.stdout)")
        #expect(files.first?["inserted"] as? Int == 0 && files.first?["updated"] as? Int == 0)
        #expect((files.first?["people_added"] as? Int ?? 0) == 0, "no one is added again")
        #expect(try database.count("select count(*) from people") == people + 40)
        #expect(try snapshot(database) == before)
    }

    @Test("--sync archives only the missing rows of the events the file names; the other events keep theirs")
    func syncPerEvent() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try Self.bigSheet(in: database, scratch: scratch)
        #expect(try database.run(["import", "attendance", file, "--no-notify"]).status == 0)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        // The welcome night's sheet again, without its first five known students.
        let welcome = lines.dropFirst().filter { $0.hasPrefix("cru-weekly-welcome,") }
        let dropped = welcome.prefix(5).map { $0.split(separator: ",")[1].lowercased() }
        let kept = try scratch.writeFile("welcome.csv", Self.header + welcome.dropFirst(5).joined(separator: "\n") + "\n")
        let sync = try database.run(["import", "attendance", kept, "--sync", "--no-notify"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id join people p on p.id = a.person_id
            where a.archived_at is not null and e.code = 'cru-weekly-welcome' and p.email = any(\(dropped)::text[])
            """) == 5)
        #expect(try database.count("select count(*) from attendance where archived_at is not null") == 5)
        #expect(try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id
            where e.code = 'epic-mid-autumn' and a.archived_at is null
            """) == 130)
    }

    @Test("a walk-in whose phone and name crubatch knows is that person, without a file giving an email column at all")
    func walkInKnownByPhone() throws {
        let database = try TestDatabase(importing: "central-coast")
        let people = try database.count("select count(*) from people")
        let file = try scratch.writeFile("paper.csv", """
            Event,First,Last,Mobile,Year
            cru-weekly-welcome,luca,DUBOIS,(805) 555-0159,3
            cru-weekly-welcome,Luca,Dubois,(805) 555-0999,3

            """)
        let load = try database.run(["import", "attendance", file, "--no-notify"])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stdout.contains("attendance: added 1 walk-in as a student"), "\(load.stdout)")
        #expect(try database.count("select count(*) from people") == people + 1)
        #expect(try database.count("""
            select count(*) from attendance a join people p on p.id = a.person_id where p.email = 'luca.dubois68@icloud.com'
            """) == 1)
        #expect(try database.count("""
            select count(*) from attendance a join people p on p.id = a.person_id
            where p.phone = '+18055550999' and p.origin = 'check-in' and p.email like 'walk-in-18055550999-%@check-in.invalid'
            """) == 1)
    }

    @Test("a check-in sheet adds students (its walk-ins), so it does not run beside a students import: exit 75")
    func studentsLock() throws {
        let database = try TestDatabase(importing: "central-coast")
        let holder = try database.connect()
        let key = 0x6372_7562_1000 + Int64(Kind.allCases.firstIndex(of: .students)!)
        #expect(try holder.tryAdvisoryLock(key))
        let file = try scratch.writeFile("sheet.csv", Self.header + "cru-weekly-welcome,,Wren,Alvarado,(805) 555-0301,1,\n")
        let locked = try database.run(["import", "attendance", file])
        #expect(locked.status == 75 && locked.stderr.contains("another import of students"), "\(locked.stderr)")
        try holder.advisoryUnlock(key)
        #expect(try database.run(["import", "attendance", file]).status == 0)
    }

    @Test("a blank time keeps a stored check-in's time; --blank clear puts it back at the event's start")
    func blankTime() throws {
        let database = try TestDatabase(importing: "central-coast")
        let timed = try scratch.writeFile("timed.csv", Self.header + "cru-weekly-welcome,luca.dubois68@icloud.com,,,,,2026-09-24T19:30\n")
        let blank = try scratch.writeFile("blank.csv", Self.header + "cru-weekly-welcome,luca.dubois68@icloud.com,,,,,\n")
        let stored = "select count(*) from attendance where checked_in_at = timestamptz '2026-09-24 19:30 America/Los_Angeles'"
        #expect(try database.run(["import", "attendance", timed, "--no-notify"]).status == 0)
        #expect(try database.count(PostgresQuery(unsafeSQL: stored)) == 1)
        let kept = try database.run(["import", "attendance", blank, "--no-notify"])
        #expect(kept.status == 0 && kept.stdout.contains("attendance     1         0        0         0          1"), "\(kept.stdout)")
        #expect(try database.count(PostgresQuery(unsafeSQL: stored)) == 1)
        #expect(try database.run(["import", "attendance", blank, "--no-notify", "--blank", "clear"]).status == 0)
        #expect(try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id where a.checked_in_at = e.starts_at
            """) == 1)
    }

    @Test("a walk-in without a phone or a name, an unknown email and a walk-in twice are refused with line and column")
    func refusedRows() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try scratch.writeFile("bad.csv", Self.header + """
            cru-weekly-welcome,,Noah,Nophone,,1,
            cru-weekly-welcome,,,Noname,805-555-7100,1,
            cru-weekly-welcome,stranger@example.edu,,,,,
            cru-weekly-welcome,,Twice,Here,805-555-7101,2,
            cru-weekly-welcome,,twice,here,(805) 555-7101,2,

            """)
        let result = try database.run(["import", "attendance", file])
        #expect(result.status == 1, "\(result.stderr)")
        for expected in ["\(file):2:5: error[missing-value]: phone is required for a walk-in (a row without email)",
                         "\(file):3:3: error[missing-value]: first_name is required for a walk-in (a row without email)",
                         "\(file):4:2: error[unknown-reference]: person with this email does not exist",
                         "\(file):6:3: error[duplicate-key]: this walk-in (no email; the same name and phone as line 5) appears more than once"] {
            #expect(result.stderr.contains(expected), "\(expected)\n\(result.stderr)")
        }
        #expect(!result.stderr.contains("805") && !result.stderr.contains("stranger@"))
        #expect(try database.count("select count(*) from attendance") == 0)
        #expect(try database.count("select count(*) from people where origin = 'check-in'") == 0)
    }
}

/// Newcomers: the first check-in at any event of a ministry of someone in none of its groups reaches
/// the ministry's staff contact, one digest per ministry per run.
@Suite("attendance: newcomers")
struct NewcomerTests {
    private let scratch = ScratchDirectory()

    /// Students of Cal Poly in no group of Cru Cal Poly or Epic, with a sex and a school year.
    private func strangers(_ database: TestDatabase, count: Int) throws -> [(email: String, name: String)] {
        try database.connect().query("""
            select p.email, p.first_name || ' ' || p.last_name from people p join campuses c on c.id = p.campus_id
            where c.code = 'calpoly' and not p.is_leader and p.sex in ('male', 'female') and p.school_year is not null
            and not exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                            join ministries mi on mi.id = g.ministry_id
                            where m.person_id = p.id and mi.code in ('cru-calpoly', 'epic-calpoly'))
            order by p.sex, p.school_year, p.email limit \(count)
            """).rows.map { (try $0.decode(String.self, 0), try $0.decode(String.self, 1)) }
    }

    /// The groups `place` would offer the person `email` in `ministry`, computed here in SQL: their sex
    /// and school year admitted, room left, fewest members, then Monday first, time, code.
    private func fitting(_ email: String, ministry: String, in database: TestDatabase) throws -> [String] {
        try database.connect().query("""
            with p as (select * from people where email = \(email)),
            g as (select g.*, (select count(*) from memberships m where m.group_id = g.id and m.status <> 'left') as members
                  from community_groups g join ministries mi on mi.id = g.ministry_id where mi.code = \(ministry))
            select g.name from g, p
            where (g.sex is null or g.sex = 'mixed' or (g.sex = 'men' and p.sex = 'male') or (g.sex = 'women' and p.sex = 'female'))
            and (g.audience is null or g.audience = 'mixed' or g.audience =
                 (array['freshmen', 'sophomores', 'juniors', 'seniors', 'graduates'])[p.school_year])
            and (g.capacity is null or g.members < g.capacity)
            order by g.members, array_position(array['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday',
                     'Sunday'], g.meeting_day), g.meeting_time, g.code
            limit 3
            """).rows.map { try $0.decode(String.self, 0) }
    }

    /// The paragraph of `body` about the person named `name`, and how many paragraphs name them.
    private func entry(_ name: String, in body: String) -> (lines: [String], count: Int) {
        let entries = body.components(separatedBy: "\n\n").filter { $0.hasPrefix(name + ", at ") }
        return (entries.first?.components(separatedBy: "\n") ?? [], entries.count)
    }

    @Test("the digest in the SMTP sink lists exactly the first-time attendees in no group, each once, with groups that fit their sex and school year")
    func digestListsNewcomers() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().execute("update notifications set status = 'sent', sent_at = now()")
        let contacts = try scratch.writeFile("ministries.csv", """
            code,name,campus,contact_email
            cru-calpoly,Cru Cal Poly,calpoly,Follow-Up@CruCalPoly.example
            epic-calpoly,Epic Movement Cal Poly,calpoly,epic.staff@example.org

            """)
        try #require(try database.run(["import", "ministries", contacts]).status == 0)
        let newcomers = try strangers(database, count: 7)
        let member = try database.connect().query("""
            select p.email, p.first_name || ' ' || p.last_name from people p join memberships m on m.person_id = p.id
            join community_groups g on g.id = m.group_id join ministries mi on mi.id = g.ministry_id
            where mi.code = 'cru-calpoly' and m.status = 'active' and not p.is_leader order by p.email limit 1
            """).rows.map { (try $0.decode(String.self, 0), try $0.decode(String.self, 1)) }[0]
        let (returning, rest) = (newcomers[0], Array(newcomers.dropFirst()))
        // Last week: `returning` came to the welcome night (nothing sent: --no-notify).
        let lastWeek = try scratch.writeFile("last-week.csv", AttendanceTests.header
            + "cru-weekly-welcome,\(returning.email),,,,,\n")
        try #require(try database.run(["import", "attendance", lastWeek, "--no-notify"]).status == 0)

        var sheet = AttendanceTests.header
        for person in rest { sheet += "fall-retreat-2026,\(person.email),,,,,\n" }
        sheet += "epic-mid-autumn,\(rest[0].email),,,,,\nspring-missions-info,\(rest[0].email),,,,,\n"
        sheet += "spring-missions-info,\(returning.email),,,,,\ncru-weekly-welcome,\(member.0),,,,,\n"
        sheet += "fall-retreat-2026,,Wren,Firstyear,805-555-7301,freshman,\n"
        sheet += "fall-retreat-2026,,Jude,Thirdyear,805-555-7302,junior,\n"
        let file = try scratch.writeFile("retreat.csv", sheet)
        let load = try database.run(["import", "attendance", file])
        #expect(load.status == 0, "\(load.stderr)")
        let queued = try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'")
        #expect(queued == 2 * (rest.count + 2))

        let sent = try database.run(["notify", "--smtp-url", try MailSink.url(), "--no-digest"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let messages = try MailSink.messages(for: database).filter { $0.header("Subject")?.contains("newcomer") == true }
        #expect(messages.count == 2, "one digest per ministry, --no-digest or not")
        let walkIns = try database.connect().query("""
            select email, first_name || ' ' || last_name from people where origin = 'check-in' order by email
            """).rows.map { (email: try $0.decode(String.self, 0), name: try $0.decode(String.self, 1)) }
        #expect(Set(walkIns.map(\.name)) == ["Wren Firstyear", "Jude Thirdyear"])
        let expected = rest + walkIns
        for (ministry, contact, name) in [("cru-calpoly", "follow-up@crucalpoly.example", "Cru Cal Poly"),
                                          ("epic-calpoly", "epic.staff@example.org", "Epic Movement Cal Poly")] {
            let message = try #require(messages.first { $0.header("To")?.contains(contact) == true }, "\(contact)")
            #expect(message.header("Subject") == "\(expected.count) newcomers to follow up for \(name)")
            let body = message.body
            for (email, newcomer) in expected {
                let (lines, count) = entry(newcomer, in: body)
                #expect(count == 1, "\(newcomer) once in \(ministry)'s digest:\n\(body)")
                let fits = lines.filter { $0.hasPrefix("  Fits:        ") }.map { String($0.dropFirst(15)) }
                let oracle = try fitting(email, ministry: ministry, in: database)
                #expect(fits.count == max(oracle.count, 1), "\(newcomer) in \(ministry): \(fits) vs \(oracle)")
                for (line, group) in zip(fits, oracle) {
                    #expect(line.hasPrefix(group + ",") || line.hasPrefix(group + " ("), "\(newcomer): \(line) is not \(group)")
                }
                if oracle.isEmpty { #expect(fits == ["no group with room takes them yet"]) }
            }
            for other in [returning.name, member.1] {
                #expect(!body.contains(other), "\(other) is no newcomer of \(ministry)")
            }
            #expect(!body.contains(WalkInsDomain.text), "a walk-in's key is no address to show")
        }
        // A walk-in of unknown sex is offered only groups open to both.
        let cru = try #require(messages.first { $0.header("To")?.contains("follow-up@") == true })
        let wren = entry("Wren Firstyear", in: cru.body).lines.joined(separator: "\n")
        #expect(wren.contains("Phone:       (805) 555-7301") || wren.contains("555-7301"), "\(wren)")
        #expect(!wren.contains("Men") && !wren.contains("Women"), "\(wren)")
        // Nothing is queued again when the sheet is read again.
        let all = try database.count("select count(*) from notifications where kind = 'newcomer'")
        let again = try database.run(["import", "attendance", file])
        #expect(again.status == 0, "\(again.stdout)")
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer'") == all)
    }

    @Test("a newcomer who joins a group of the ministry before notify runs is not followed up")
    func joinedBeforeSending() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().execute("update notifications set status = 'sent', sent_at = now()")
        try database.connect().execute("update ministries set contact_email = 'staff@example.org' where code in ('cru-calpoly', 'epic-calpoly')")
        let person = try strangers(database, count: 1)[0]
        let file = try scratch.writeFile("sheet.csv", AttendanceTests.header
            + "cru-weekly-welcome,\(person.email),,,,,\nepic-mid-autumn,\(person.email),,,,,\n")
        #expect(try database.run(["import", "attendance", file]).status == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == 2)
        let join = try scratch.writeFile("memberships.csv", "group,email\ncp-small-tue,\(person.email)\n")
        #expect(try database.run(["import", "memberships", join, "--no-notify"]).status == 0)
        #expect(try database.count("""
            select count(*) from notifications n join ministries mi on mi.id = n.ministry_id
            where n.kind = 'newcomer' and n.status = 'cancelled' and mi.code = 'cru-calpoly'
            """) == 1)
        let sent = try database.run(["notify", "--smtp-url", try MailSink.url()])
        #expect(sent.status == 0, "\(sent.stderr)")
        let messages = try MailSink.messages(for: database).filter { $0.header("Subject")?.contains("newcomer") == true }
        #expect(messages.count == 1 && messages.first?.header("To")?.contains("staff@example.org") == true)
        #expect(messages.first?.header("Subject") == "1 newcomer to follow up for Epic Movement Cal Poly")
    }

    @Test("merging a walk-in into a member of one of the ministry's groups cancels the walk-in's newcomer message; undo brings it back")
    func mergedIntoAMember() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().execute("update notifications set status = 'sent', sent_at = now()")
        try database.connect().execute("update ministries set contact_email = 'staff@example.org' where code = 'cru-calpoly'")
        let member = try #require(try database.connect().query("""
            select p.email from people p join memberships m on m.person_id = p.id and m.status = 'active'
            join community_groups g on g.id = m.group_id join ministries mi on mi.id = g.ministry_id
            where mi.code = 'cru-calpoly' and not p.is_leader and p.phone is not null order by p.email limit 1
            """).text)
        let file = try scratch.writeFile("sheet.csv", AttendanceTests.header + "cru-weekly-welcome,,Walk,Inbetween,805-555-7199,1,\n")
        #expect(try database.run(["import", "attendance", file]).status == 0)
        let walkIn = try #require(try database.connect().query("select email from people where origin = 'check-in'").text)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == 1)
        let merge = try database.run(["people", "merge", member, walkIn])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.contains("1 newcomer message cancelled (no newcomer)"), "\(merge.stdout)")
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == 0)
        let sent = try database.run(["notify", "--smtp-url", try MailSink.url()])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try MailSink.messages(for: database).filter { $0.header("Subject")?.contains("newcomer") == true }.isEmpty)

        let runID = try database.count("select max(id) from import_runs where kind = 'people-merge'")
        #expect(try database.run(["undo", String(runID)]).status == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == 1)
    }

    @Test("--no-notify records the newcomers as suppressed; a ministry without a contact gets none")
    func suppressed() throws {
        let database = try TestDatabase(importing: "central-coast")
        let person = try strangers(database, count: 1)[0]
        let file = try scratch.writeFile("sheet.csv", AttendanceTests.header + "cru-weekly-welcome,\(person.email),,,,,\n")
        try database.connect().execute("update ministries set contact_email = 'staff@example.org' where code = 'cru-calpoly'")
        #expect(try database.run(["import", "attendance", file, "--no-notify"]).status == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'suppressed'") == 1)
        let other = try scratch.writeFile("epic.csv", AttendanceTests.header + "epic-mid-autumn,\(person.email),,,,,\n")
        #expect(try database.run(["import", "attendance", other]).status == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer'") == 1)
    }
}

/// The domain of walk-ins' keys, as the tests look for it.
private enum WalkInsDomain {
    static let text = "check-in.invalid"
}

/// Stamps: the events each person came to, per campus and term, checked against counts in SQL.
@Suite("attendance: stamps")
struct StampsTests {
    private let scratch = ScratchDirectory()

    /// A database with the big sheet, a winter event and a Cuesta-only event loaded.
    private func loaded() throws -> TestDatabase {
        let database = try TestDatabase(importing: "central-coast")
        #expect(try database.run(["import", "terms", TestEnvironment.fixture("terms") + "/terms.csv"]).status == 0)
        let emails = try database.connect().query("""
            select email from people where not is_leader and is_member order by email limit 30
            """).rows.map { try $0.decode(String.self, 0) }
        var text = AttendanceTests.header
        for email in emails.prefix(20) { text += "spring-missions-info,\(email),,,,,\n" }
        for email in emails.suffix(10) { text += "cuesta-welcome-lunch,\(email),,,,,\n" }
        text += "fall-retreat-2026,,Noah,WalkinAlpha0,(805) 555-7000,1,\n"
        for file in [try AttendanceTests.bigSheet(in: database, scratch: scratch), try scratch.writeFile("more.csv", text)] {
            let load = try database.run(["import", "attendance", file, "--no-notify"])
            try #require(load.status == 0, "\(load.stderr)")
        }
        return database
    }

    /// The rows of an export: person (first, last, email, phone) -> its stamps and events.
    private func stamps(_ csv: String) -> [String: String] {
        var rows: [String: String] = [:]
        for line in csv.components(separatedBy: "\r\n").dropFirst() where !line.isEmpty {
            let cells = line.components(separatedBy: ",")
            rows[cells[0...3].joined(separator: ",")] = cells[5] + " " + cells[6]
        }
        return rows
    }

    /// The same, counted here in SQL: check-ins of the campus's events (by their ministries), neither
    /// archived, starting on or after `from` and before `until`.
    private func counted(_ database: TestDatabase, from: String = "1900-01-01", until: String = "2100-01-01", min: Int = 1) throws -> [String: String] {
        var rows: [String: String] = [:]
        for row in try database.connect().query("""
            select p.first_name || ',' || p.last_name || ',' || case when p.origin = 'check-in' then '' else p.email end
                   || ',' || coalesce('''' || p.phone, ''), count(*)::text || ' ' || string_agg(e.code, ';' order by e.starts_at, e.code)
            from attendance a join people p on p.id = a.person_id join events e on e.id = a.event_id
            where a.archived_at is null and e.starts_at >= \(from)::date and e.starts_at < \(until)::date
            and e.id in (select em.event_id from event_ministries em join ministries mi on mi.id = em.ministry_id
                         join campuses c on c.id = mi.campus_id where c.code = 'calpoly')
            group by p.id having count(*) >= \(min)
            """).rows {
            rows[try row.decode(String.self, 0)] = try row.decode(String.self, 1)
        }
        return rows
    }

    @Test("stamps per person of a campus, of a term and with --min equal the counts done in SQL; an event's list has its check-ins")
    func stampsMatchSQL() throws {
        let database = try loaded()
        let all = try database.run(["export", "attendance", "--campus", "calpoly"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.hasPrefix("first_name,last_name,email,phone,school_year,stamps,events\r\n"), "\(all.stdout.prefix(200))")
        let expected = try counted(database)
        #expect(expected.count == 170, "130 students and 40 walk-ins, one of them twice")
        #expect(stamps(all.stdout) == expected)

        let json = try database.run(["export", "attendance", "--campus", "calpoly", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(document["kind"] as? String == "attendance" && rows.count == expected.count)
        #expect(rows.reduce(0) { $0 + ($1["stamps"] as? Int ?? 0) } == expected.values.reduce(0) { $0 + Int($1.split(separator: " ")[0])! })
        #expect(rows.allSatisfy { ($0["phone"] as? String)?.hasPrefix("'") != true }, "JSON is not neutralised for spreadsheets")

        let term = try database.run(["export", "attendance", "--campus", "calpoly", "--term", "fall-2026"])
        #expect(term.status == 0, "\(term.stderr)")
        #expect(stamps(term.stdout) == (try counted(database, from: "2026-09-24", until: "2026-12-12")))
        #expect(!term.stdout.contains("spring-missions-info") && !all.stdout.contains("cuesta-welcome-lunch"))

        let out = try scratch.folder() + "/rewards.csv"
        let rewards = try database.run(["export", "attendance", "--campus", "calpoly", "--min", "3", "--out", out])
        #expect(rewards.status == 0, "\(rewards.stderr)")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(stamps(written) == (try counted(database, min: 3)))
        #expect(stamps(written).count == 20)
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int == 0o600)

        let event = try database.run(["export", "attendance", "--event", "cru-weekly-welcome"])
        #expect(event.status == 0, "\(event.stderr)")
        let lines = event.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 170)
        #expect(lines.filter { $0.hasSuffix(",yes") }.count == 40)
        #expect(!event.stdout.contains("check-in.invalid"))

        let unknown = try database.run(["export", "attendance", "--campus", "calpoly", "--term", "fall-1999"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no term fall-1999 at campus calpoly"), "\(unknown.stderr)")
    }

    @Test("export attendance without options is the kind as import reads it: importing it again changes nothing")
    func roundTrip() throws {
        let database = try loaded()
        let exported = try database.run(["export", "attendance"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let file = try scratch.writeFile("export.csv", exported.stdout)
        let again = try database.run(["import", "attendance", file, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        let counts = try #require((document["files"] as? [[String: Any]])?.first)
        #expect(counts["unchanged"] as? Int == 331 && counts["inserted"] as? Int == 0 && counts["updated"] as? Int == 0,
                "\(counts)")
    }
}

/// `forget` and `undo` over check-ins.
@Suite("attendance: forget and undo")
struct AttendanceLifecycleTests {
    private let scratch = ScratchDirectory()

    @Test("forget clears the person's check-in times, in the change images too, and deletes the newcomer messages about them")
    func forgetErasesCheckIns() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().execute("update ministries set contact_email = 'staff@example.org' where code = 'epic-calpoly'")
        let file = try AttendanceTests.bigSheet(in: database, scratch: scratch)
        #expect(try database.run(["import", "attendance", file]).status == 0)
        let person = try database.connect().query("""
            select p.id, p.email from people p join attendance a on a.person_id = p.id
            join notifications n on n.attendance_id = a.id where n.kind = 'newcomer' order by p.email limit 1
            """).texts[0]
        let (id, email) = (person[0]!, person[1]!)
        #expect(try database.count("""
            select count(*) from run_changes r join attendance a on a.id = r.row_id
            where r.table_name = 'attendance' and a.person_id = \(id)::bigint and r.after->>'checked_in_at' is not null
            """) == 2)
        let forget = try database.run(["forget", email])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try database.count("select count(*) from attendance where person_id = \(id)::bigint") == 2)
        #expect(try database.count("""
            select count(*) from attendance where person_id = \(id)::bigint and checked_in_at is not null
            """) == 0)
        #expect(try database.count("""
            select count(*) from run_changes r join attendance a on a.id = r.row_id
            where r.table_name = 'attendance' and a.person_id = \(id)::bigint and r.after->>'checked_in_at' is not null
            """) == 0)
        #expect(try database.count("""
            select count(*) from notifications n join attendance a on a.id = n.attendance_id where a.person_id = \(id)::bigint
            """) == 0)
        let stamps = try database.run(["export", "attendance", "--campus", "calpoly"])
        #expect(!stamps.stdout.contains("Forgotten"), "a forgotten person has no passport")
    }

    @Test("undo of a check-in import removes its rows and the walk-ins it added, and cancels its pending newcomer messages")
    func undoCheckIns() throws {
        let database = try TestDatabase(importing: "central-coast")
        try database.connect().execute("update ministries set contact_email = 'staff@example.org' where code = 'cru-calpoly'")
        let people = try database.count("select count(*) from people")
        let file = try AttendanceTests.bigSheet(in: database, scratch: scratch)
        let load = try database.run(["import", "attendance", file, "--format", "json"])
        #expect(load.status == 0, "\(load.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(load.stdout.utf8)) as? [String: Any])
        let run = try #require((document["files"] as? [[String: Any]])?.first?["run_id"] as? Int)
        let pending = try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'")
        // Everyone at the welcome night (Cru Cal Poly's) who is in none of its groups.
        #expect(pending == (try database.count("""
            select count(*) from attendance a join events e on e.id = a.event_id
            where e.code = 'cru-weekly-welcome' and not exists (
                select 1 from memberships m join community_groups g on g.id = m.group_id join ministries mi on mi.id = g.ministry_id
                where m.person_id = a.person_id and mi.code = 'cru-calpoly' and m.status = 'active')
            """)))
        #expect(pending > 40)
        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)\(undo.stdout)")
        #expect(try database.count("select count(*) from attendance") == 0)
        #expect(try database.count("select count(*) from people") == people)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == 0)
        // Read again, the sheet finds no one and queues its newcomers anew.
        #expect(try database.run(["import", "attendance", file]).status == 0)
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer' and status = 'pending'") == pending)
    }
}

/// Rosters' "events this term".
@Suite("attendance: rosters")
struct AttendanceRosterTests {
    private let scratch = ScratchDirectory()

    @Test("a roster gives each member the campus's events they came to in the current term, as counted in SQL")
    func eventsThisTerm() throws {
        let database = try TestDatabase(importing: "central-coast")
        // A term of Cal Poly that holds today and the fall's events.
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        format.timeZone = TimeZone(identifier: "America/Los_Angeles")
        let today = Date()
        let start = min(today.addingTimeInterval(-86_400), format.date(from: "2026-09-01")!)
        let end = max(today.addingTimeInterval(86_400), format.date(from: "2026-10-31")!)
        let terms = try scratch.writeFile("terms.csv", "campus,code,name,starts_on,ends_on\n"
            + "calpoly,now,This Term,\(format.string(from: start)),\(format.string(from: end))\n")
        #expect(try database.run(["import", "terms", terms]).status == 0)
        let members = try database.connect().query("""
            select p.email from memberships m join people p on p.id = m.person_id join community_groups g on g.id = m.group_id
            where g.code = 'cp-fr-men-mon' and m.status <> 'left' order by p.email
            """).rows.map { try $0.decode(String.self, 0) }
        #expect(members.count >= 3)
        var sheet = AttendanceTests.header
        for (index, email) in members.enumerated() {
            sheet += "cru-weekly-welcome,\(email),,,,,\n"
            if index % 2 == 0 { sheet += "fall-retreat-2026,\(email),,,,,\n" }
            if index % 3 == 0 { sheet += "cuesta-welcome-lunch,\(email),,,,,\n" }
        }
        let file = try scratch.writeFile("sheet.csv", sheet)
        #expect(try database.run(["import", "attendance", file, "--no-notify"]).status == 0)

        let roster = try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--format", "json"])
        #expect(roster.status == 0, "\(roster.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(roster.stdout.utf8)) as? [String: Any])
        let listed = try #require(((document["groups"] as? [[String: Any]])?.first?["members"]) as? [[String: Any]])
        #expect(listed.count == members.count)
        for member in listed {
            let email = try #require(member["email"] as? String)
            let expected = try database.count("""
                select count(*) from attendance a join people p on p.id = a.person_id join events e on e.id = a.event_id
                join terms t on t.code = 'now' where p.email = \(email)
                and e.starts_at::date between t.starts_on and t.ends_on
                and exists (select 1 from event_ministries em join ministries mi on mi.id = em.ministry_id
                            join campuses c on c.id = mi.campus_id where em.event_id = e.id and c.code = 'calpoly')
                """)
            #expect(member["events_this_term"] as? Int == expected, "\(email)")
        }
        let people = try database.run(["export", "roster", "--group", "cp-fr-men-mon"])
        #expect(people.stdout.contains("First name,Last name,Email,Phone,Year,Events this term,Joined"))
        let machines = try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--for", "machines"])
        let rows = machines.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
        #expect(Set(rows.map { $0.components(separatedBy: ",").last! }) == ["1", "2"], "cuesta's lunch is no Cal Poly event: \(rows)")
    }
}

/// Check-in sheets as staff have them: a Google Forms export and an Excel workbook.
@Suite("attendance: sheets")
struct AttendanceSheetTests {
    private let scratch = ScratchDirectory()

    @Test("a Google Forms export (Timestamp, Email Address ...) and its .xlsx twin load the same check-ins")
    func formsAndWorkbook() throws {
        let folder = try scratch.folder()
        let csv = try scratch.writeFile("forms.csv", """
            Timestamp,Email Address,Event,First name,Last name,Phone number,Year in school
            9/24/2026 19:05:33,luca.dubois68@icloud.com,Cru Weekly: Welcome Back,,,,
            9/24/2026 19:07:10,,cru-weekly-welcome,Wren,Firstyear,(805) 555-7301,Freshman

            """)
        _ = try Python.run(script: #"""
            import sys, datetime, openpyxl
            book = openpyxl.Workbook()
            sheet = book.active
            sheet.append(["Timestamp", "Email Address", "Event", "First name", "Last name", "Phone number", "Year in school"])
            sheet.append([datetime.datetime(2026, 9, 24, 19, 5, 33), "luca.dubois68@icloud.com", "Cru Weekly: Welcome Back",
                          None, None, None, None])
            sheet.append([datetime.datetime(2026, 9, 24, 19, 7, 10), None, "cru-weekly-welcome", "Wren", "Firstyear",
                          8055557301, "Freshman"])
            book.save(sys.argv[1] + "/forms.xlsx")
            """#, arguments: [folder])
        var exports: [String] = []
        for file in [csv, folder + "/forms.xlsx"] {
            let database = try TestDatabase(importing: "central-coast")
            let load = try database.run(["import", "attendance", file, "--no-notify"])
            #expect(load.status == 0, "\(file): \(load.stderr)")
            #expect(try database.count("""
                select count(*) from attendance a join events e on e.id = a.event_id
                where e.code = 'cru-weekly-welcome' and a.checked_in_at in
                (timestamptz '2026-09-24 19:05:33 America/Los_Angeles', timestamptz '2026-09-24 19:07:10 America/Los_Angeles')
                """) == 2)
            exports.append(try database.run(["export", "attendance", "--event", "cru-weekly-welcome"]).stdout)
        }
        #expect(exports[0] == exports[1])
        #expect(exports[0].contains("Wren,Firstyear,,'+18055557301,1,2026-09-24T19:07:10,yes"), "\(exports[0])")
    }
}
