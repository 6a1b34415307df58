import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// A first load of many rows checks its foreign keys once, at the end of its inserts, instead of row
/// by row: the loader drops the keys inside its transaction and adds them back. What must hold: the
/// same keys afterwards, every row checked, nothing changed by a rollback, and the row-by-row path
/// whenever the tables' locks are not granted at once or the load is small.
@Suite("first loads check their foreign keys once")
struct BulkLoadTests {
    /// `count` students (all new), each in one or two of the central-coast ministries, on its campus.
    /// Their last names, email handles and phones all differ, so the possible-duplicate check finds no pairs.
    private static func students(_ count: Int, from first: Int = 0) -> String {
        "email,first_name,last_name,phone,sex,school_year,campus,ministries\n"
            + (first..<first + count).map { n in
                "\(lastName(n).lowercased())@bulk.example.edu,Sam,\(lastName(n)),805-\(200 + n / 10_000)-\(String(format: "%04d", n % 10_000)),"
                    + "female,2,calpoly," + (n % 2 == 0 ? "cru-calpoly" : "cru-calpoly;epic-calpoly") + "\n"
            }.joined()
    }

    /// Eight letters drawn from `n`: no two of a few thousand are a letter apart.
    private static func lastName(_ n: Int) -> String {
        var bits = UInt64(n + 1) &* 0x9E37_79B9_7F4A_7C15
        var letters = ""
        for _ in 0..<8 {
            letters.append(Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(bits % 26))))
            bits /= 26
        }
        return letters.prefix(1).uppercased() + letters.dropFirst()
    }

    private struct Key: Equatable {
        let name: String, definition: String, oid: Int, validated: Bool
    }

    /// Each foreign key of `tables` (the students' by default): its name, its definition and its
    /// catalog oid (new when the key was dropped and added back), validated or not.
    private func keys(_ database: TestDatabase, of tables: [String] = ["people", "person_ministries"]) throws -> [Key] {
        try database.connect().query("""
            select c.conname, pg_get_constraintdef(c.oid), c.oid::bigint, c.convalidated
            from pg_constraint c where c.contype = 'f' and c.conrelid = any(\(tables)::regclass[])
            order by c.conname
            """).rows.map {
            Key(name: try $0.decode(String.self, 0), definition: try $0.decode(String.self, 1),
                oid: try $0.decode(Int.self, 2), validated: try $0.decode(Bool.self, 3))
        }
    }

    private struct Index: Equatable {
        let definition: String, oid: Int
    }

    /// Each index of `tables`: its definition and its catalog oid (new when it was built again).
    private func indexes(_ database: TestDatabase, of tables: [String] = ["people", "person_ministries"]) throws -> [Index] {
        try database.connect().query("""
            select pg_get_indexdef(i.indexrelid), i.indexrelid::bigint from pg_index i
            where i.indrelid = any(\(tables)::regclass[]) order by 1
            """).rows.map { Index(definition: try $0.decode(String.self, 0), oid: try $0.decode(Int.self, 1)) }
    }

    private func importStudents(_ count: Int, into database: TestDatabase, from first: Int = 0,
                                options: [String] = []) throws -> CommandResult {
        try withTemporaryFile(bytes(Self.students(count, from: first)), named: "students.csv") { path in
            try database.run(["import", "students", path] + options)
        }
    }

    @Test("12,000 new students: stored, their keys and secondary indexes dropped and added back the same, checked, and undo takes them out")
    func largeFirstLoad() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try keys(database)
        let indexesBefore = try indexes(database)
        #expect(before.map(\.name) == ["people_campus_id_fkey", "person_ministries_ministry_id_fkey",
                                       "person_ministries_person_id_fkey"])
        let people = try database.count("select count(*) from people")

        let result = try importStudents(12_000, into: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 12_000)
        #expect(try database.count("""
            select count(*) from person_ministries pm join people p on p.id = pm.person_id where p.email like '%@bulk.example.edu'
            """) == 18_000)
        let after = try keys(database)
        #expect(after.map(\.name) == before.map(\.name))
        #expect(after.map(\.definition) == before.map(\.definition))
        #expect(after.filter(\.validated).count == 3)
        #expect(Set(after.map(\.oid)).isDisjoint(with: before.map(\.oid)), "the keys were checked row by row")
        // The indexes no constraint owns were built again; the primary keys stayed.
        let indexesAfter = try indexes(database)
        #expect(indexesAfter.map(\.definition) == indexesBefore.map(\.definition))
        let rebuilt = indexesAfter.filter { !indexesBefore.map(\.oid).contains($0.oid) }.map(\.definition)
        #expect(rebuilt.count == 3 && rebuilt.allSatisfy { !$0.contains("_pkey") }, "\(rebuilt)")
        // The email's uniqueness still holds.
        let duplicate = #expect(throws: PostgresError.self) {
            try database.connect().execute("insert into people (email, first_name, last_name) select email, 'A', 'B' from people limit 1")
        }
        #expect(duplicate?.sqlState == "23505", "\(String(describing: duplicate))")

        // The keys still hold: a row the keys refuse is refused.
        #expect(throws: PostgresError.self) {
            try database.connect().execute("insert into person_ministries (person_id, ministry_id) values (-1, -1)")
        }
        let run = try database.count("select max(id) from import_runs")
        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try database.count("select count(*) from people") == people)
        #expect(try keys(database).map(\.definition) == before.map(\.definition))
    }

    @Test("a first load of 12,000 as Excel saves a CSV (CRLF), one email typed again in other case with spaces: refused at its line, the rest loads through the index rebuild")
    func repeatedEmailInBulkLoad() throws {
        let database = try TestDatabase()
        var text = "email,first_name,last_name\r\n"
        for n in 0..<12_000 { text += "student\(n)@calpoly.edu,Sam,Student\(n)\r\n" }
        text += " Student7@CalPoly.edu ,Sam,Student7\r\n"
        let indexesBefore = try indexes(database)
        let (refused, storedAfterRefusal, skipped) = try withTemporaryFile(bytes(text), named: "students.csv") { file in
            (try database.run(["import", "students", file]), try database.count("select count(*) from people"),
             try database.run(["import", "students", file, "--on-error", "skip"]))
        }
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(storedAfterRefusal == 0, "an error writes nothing")
        #expect(refused.stderr.contains("students.csv:12002:1: error[duplicate-key]: this email appears more than once in the file (first on line 9)"),
                "\(refused.stderr)")
        #expect(skipped.status == 1, "\(skipped.stderr)")
        #expect(try database.count("select count(*) from people") == 12_000)
        #expect(try indexes(database).map(\.definition) == indexesBefore.map(\.definition))
        let again = #expect(throws: PostgresError.self) {
            try database.connect().execute("insert into people (email, first_name, last_name) values ('student7@calpoly.edu', 'A', 'B')")
        }
        #expect(again?.sqlState == "23505", "\(String(describing: again))")
    }

    @Test("a first load of 12,000 whose ids come from their lines: each student's ministries are on their own row past a refused row and quoted newlines, and the next insert takes an id after the load's")
    func firstLoadListsByLine() throws {
        let database = try TestDatabase(importing: "central-coast")
        // Even students are in one ministry, odd ones in two; every 1000th row's notes span three
        // lines, and a row with a bad email (and a list of its own) sits in the middle.
        var text = "email,first_name,last_name,phone,sex,school_year,campus,ministries,notes\n"
        for n in 0..<12_000 {
            if n == 6_000 { text += "not an email,Sam,Refused,805-555-0100,male,2,calpoly,epic-calpoly,\n" }
            text += "\(Self.lastName(n).lowercased())@bulk.example.edu,Sam,\(Self.lastName(n)),"
                + "805-\(200 + n / 10_000)-\(String(format: "%04d", n % 10_000)),\(n % 2 == 0 ? "female" : "male"),2,calpoly,"
                + (n % 2 == 0 ? "cru-calpoly" : "cru-calpoly;epic-calpoly") + (n % 1000 == 0 ? ",\"met at\nthe\nfair\"\n" : ",\n")
        }
        let result = try withTemporaryFile(bytes(text), named: "students.csv") { path in
            try database.run(["import", "students", path, "--on-error", "skip"])
        }
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error[invalid-email]"), "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 12_000)
        #expect(try database.count("""
            select count(*) from people p where p.email like '%@bulk.example.edu'
            and (select string_agg(m.code, ';' order by pm.position) from person_ministries pm
                 join ministries m on m.id = pm.ministry_id where pm.person_id = p.id)
                is distinct from case p.sex when 'female' then 'cru-calpoly' else 'cru-calpoly;epic-calpoly' end
            """) == 0)
        #expect(try database.count("select count(*) from person_ministries pm join people p on p.id = pm.person_id where p.email like '%@bulk.example.edu'") == 18_000)
        let next = try database.connect().query("""
            insert into people (email, first_name, last_name) values ('after@bulk.example.org', 'Ana', 'After') returning id
            """).scalar(Int.self)
        #expect(try database.count("select count(*) from people where id >= \(next) and email <> 'after@bulk.example.org'") == 0)
    }

    /// 12,000 new students as a campus sheet holds them: headers as people type them, phones
    /// formatted, school years 1 to 3, ministries typed as names, codes and repeats in other case
    /// (the school year says which), and every 500th row's notes on two lines; as Excel saves it as
    /// 'CSV UTF-8': a BOM, CRLF rows, an Alt+Enter break as a bare LF inside quotes.
    private static func campusSheet() -> String {
        let typed = ["Cru Cal Poly", "cru-calpoly; Epic Movement Cal Poly", "epic-calpoly;EPIC-CALPOLY"]
        var text = "\u{FEFF}Email,First Name,Last Name,Phone,School Year,Campus,Ministries,Notes\r\n"
        for n in 0..<12_000 {
            text += "\(lastName(n))@Bulk.Example.edu,Sam,\(lastName(n)),(805) \(200 + n / 10_000)-\(String(format: "%04d", n % 10_000)),"
                + "\(n % 3 + 1),Cal Poly,\"\(typed[n % 3])\"," + (n % 500 == 0 ? "\"met at the fair\nwants a group\"\r\n" : "\r\n")
        }
        return text
    }

    /// Expects `campusSheet()`'s students loaded, each with the ministries their row typed, once each.
    private static func expectCampusSheetLoaded(_ database: TestDatabase) throws {
        let stored = ["cru-calpoly", "cru-calpoly;epic-calpoly", "epic-calpoly"]
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 12_000)
        #expect(try database.count("""
            select count(*) from people p where p.email like '%@bulk.example.edu'
            and (select string_agg(m.code, ';' order by pm.position) from person_ministries pm
                 join ministries m on m.id = pm.ministry_id where pm.person_id = p.id)
                is distinct from (\(stored)::text[])[p.school_year]
            """) == 0)
        #expect(try database.count("select count(*) from person_ministries pm join people p on p.id = pm.person_id where p.email like '%@bulk.example.edu'") == 16_000)
    }

    @Test("a first load of 12,000 as Excel saves 'CSV UTF-8' (a BOM, CRLF rows, Alt+Enter line breaks in quoted notes), ministries typed as names, codes and repeats in other case: each student gets the ministries typed, once each")
    func firstLoadAsExcelSavesIt() throws {
        let database = try TestDatabase(importing: "central-coast")
        let result = try withTemporaryFile(bytes(Self.campusSheet()), named: "students.csv") { path in
            try database.run(["import", "students", path])
        }
        #expect(result.status == 0, "\(result.stderr)")
        try Self.expectCampusSheetLoaded(database)
    }

    @Test("a first load of 12,000 from a workbook as openpyxl writes it (inline strings, school years as numbers, a line break inside a cell, a blank row after every thousand, so row numbers skip): each student gets the ministries typed, by row")
    func firstLoadFromAWorkbook() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            try Data(Self.campusSheet().utf8).write(to: URL(fileURLWithPath: folder + "/students.csv"))
            _ = try Python.run(script: """
                import csv, sys, openpyxl
                book = openpyxl.Workbook()
                sheet = book.active
                sheet.title = "Students"
                with open(sys.argv[1], encoding="utf-8-sig", newline="") as source:
                    for index, row in enumerate(csv.reader(source)):
                        if index and index % 1000 == 0:
                            sheet.append([])
                        row = [cell or None for cell in row]
                        if index:
                            row[4] = int(row[4])
                        sheet.append(row)
                book.save(sys.argv[2])
                """, arguments: [folder + "/students.csv", folder + "/students.xlsx"])
            let result = try database.run(["import", "students", folder + "/students.xlsx"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("Students!1001: warning[blank-row]"), "a blank row is a warning naming it: \(result.stderr)")
        }
        try Self.expectCampusSheetLoaded(database)
    }

    @Test("a dry run of 12,000 new students changes neither the rows nor the keys and indexes")
    func dryRunKeepsKeys() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try keys(database)
        let indexesBefore = try indexes(database)
        let result = try importStudents(12_000, into: database, options: ["--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 0)
        #expect(try keys(database) == before)
        #expect(try indexes(database) == indexesBefore)
    }

    @Test("a small first load, and a large one while another session reads the ministries, check row by row and still load")
    func rowByRowWhenSmallOrBusy() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try keys(database)
        let small = try importStudents(500, into: database)
        #expect(small.status == 0, "\(small.stderr)")
        #expect(try keys(database) == before)

        // A reader holding the ministries: dropping a key would wait for it, and every reader after it.
        let reader = try database.connect()
        try reader.execute("begin")
        try reader.execute("select count(*) from ministries")
        let started = Date()
        let busy = try importStudents(12_000, into: database, from: 1000)
        try reader.execute("rollback")
        #expect(busy.status == 0, "\(busy.stderr)")
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 12_500)
        #expect(try keys(database) == before)
    }

    @Test("a first load after a rolled-back one, with statistics that call the tables empty, loads and checks its keys")
    func afterDryRunStatistics() throws {
        let database = try TestDatabase(importing: "central-coast")
        let dryRun = try importStudents(12_000, into: database, options: ["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        try database.connect().execute("analyze people, person_ministries")
        let result = try importStudents(12_000, into: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@bulk.example.edu'") == 12_000)
        #expect(try keys(database).filter(\.validated).count == 3)
    }

    /// `count` questionnaire answers of new students, each choosing Cru at Cal Poly.
    private static func answers(_ count: Int) -> String {
        "Timestamp,First name,Last name,Email address,Phone number,Sex,What year are you in school?,"
            + "Which campus do you attend?,Which ministries are you interested in?,When are you free to meet each week?\n"
            + (0..<count).map { n in
                "9/1/2026 10:00:00,Sam,\(lastName(n)),\(lastName(n).lowercased())@place.example.edu,"
                    + "805-\(300 + n / 10_000)-\(String(format: "%04d", n % 10_000)),F,2,calpoly,cru-calpoly,Mon evening\n"
            }.joined()
    }

    @Test("a first placement of 10,000 new students checks the keys of the people and their ministries once")
    func largeFirstPlacement() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try keys(database)
        let people = try database.count("select count(*) from people")
        let result = try withTemporaryFile(bytes(Self.answers(10_000)), named: "answers.csv") { path in
            try database.run(["place", path, "--quiet"])
        }
        // Groups fill up: some answers are not placed.
        #expect(result.status <= 1, "\(result.stderr)")
        #expect(try database.count("select count(*) from people") == people + 10_000)
        #expect(try database.count("""
            select count(*) from person_ministries pm join people p on p.id = pm.person_id where p.email like '%@place.example.edu'
            """) == 10_000)
        let after = try keys(database)
        #expect(after.map(\.name) == before.map(\.name))
        #expect(after.map(\.definition) == before.map(\.definition))
        #expect(after.filter(\.validated).count == before.count)
        #expect(Set(after.map(\.oid)).isDisjoint(with: before.map(\.oid)), "the keys were checked row by row")
    }

    @Test("a first pairing of 10,000 request legs checks the keys of its pairings once")
    func largeFirstPairing() throws {
        let database = try TestDatabase()
        // 10,000 request legs (5,000 riders both ways) for 50 cars of 8 seats: 800 of them find a seat.
        try database.connect().script("""
            insert into events (code, name, starts_at, timezone, location, rideshare)
            values ('retreat', 'Fall Retreat', '2026-10-16 17:00 America/Los_Angeles', 'America/Los_Angeles',
                    'Camp Ocean Pines', 'both');
            insert into people (email, first_name, last_name, phone)
            select 'd' || n || '@example.org', 'Dana' || n, 'Driver', '+1805556' || lpad(n::text, 4, '0')
            from generate_series(1, 50) n;
            insert into people (email, first_name, last_name, phone, is_member)
            select 'p' || n || '@example.edu', 'Pat' || n, 'Rider', '+1805557' || lpad(n::text, 4, '0'), false
            from generate_series(1, 5000) n;
            insert into ride_offers (event_id, driver_id, direction, seats, departs_to, departs_from, pickup_location,
                                     latitude, longitude)
            select e.id, p.id, 'both', 8, '2026-10-16 15:30 America/Los_Angeles', '2026-10-18 13:30 America/Los_Angeles',
                   'Home', 35.2 + (p.id % 50) * 0.004, -120.7 + (p.id / 50) * 0.004
            from events e, people p where p.email like 'd%@example.org';
            insert into ride_requests (event_id, passenger_id, direction, pickup_location, latitude, longitude)
            select e.id, p.id, 'both', 'Dorm', 35.2 + (p.id % 97) * 0.002, -120.7 + (p.id / 97) * 0.002
            from events e, people p where p.email like 'p%@example.edu';
            """)
        let before = try keys(database, of: ["ride_pairings"])
        let result = try database.run(["rides", "pair", "--event", "retreat", "--quiet"])
        #expect(result.status == 1, "some passengers wait: \(result.stderr)")
        #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == 800)
        #expect(try database.count("select count(*) from notifications where kind = 'ride-paired'") == 1_600)
        let after = try keys(database, of: ["ride_pairings"])
        #expect(after.count == 2)
        #expect(after.map(\.name) == before.map(\.name))
        #expect(after.map(\.definition) == before.map(\.definition))
        #expect(after.filter(\.validated).count == 2)
        #expect(Set(after.map(\.oid)).isDisjoint(with: before.map(\.oid)), "the keys were checked row by row")
    }
}
