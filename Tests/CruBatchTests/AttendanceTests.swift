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
    private func bigSheet(in database: TestDatabase) throws -> String {
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

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
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
        let file = try bigSheet(in: database)
        let people = try database.count("select count(*) from people")
        let first = try database.run(["import", "attendance", file, "--no-notify"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("attendance: added 40 walk-ins as students"), "\(first.stdout)")
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
        let files = try #require(try json(again.stdout)["files"] as? [[String: Any]])
        #expect(files.first?["unchanged"] as? Int == 300, "\(again.stdout)")
        #expect(files.first?["inserted"] as? Int == 0 && files.first?["updated"] as? Int == 0)
        #expect(files.first?["peopleAdded"] == nil, "no one is added again")
        #expect(try database.count("select count(*) from people") == people + 40)
        #expect(try snapshot(database) == before)
    }

    @Test("--sync archives only the missing rows of the events the file names; the other events keep theirs")
    func syncPerEvent() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try bigSheet(in: database)
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
                         "\(file):6:2: error[duplicate-key]"] {
            #expect(result.stderr.contains(expected), "\(expected)\n\(result.stderr)")
        }
        #expect(!result.stderr.contains("805") && !result.stderr.contains("stranger@"))
        #expect(try database.count("select count(*) from attendance") == 0)
        #expect(try database.count("select count(*) from people where origin = 'check-in'") == 0)
    }
}
