import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Sheets as other programs write them (fixtures/headers, fixtures/google-forms): a header error says
/// what the sheet has and the `--map` line that loads it, a merged header cell is named as merged, and
/// a Google Forms export loads as students or attendance with one `--map` line or a saved map file,
/// its whole names split into first and last names.
@Suite("sheets as other programs write them")
struct ProducerSheetTests {
    private let scratch = ScratchDirectory()

    static let forms = TestEnvironment.fixture("google-forms")
    static let interest = forms + "/Cru Interest Form (Responses) - Form Responses 1.csv"
    static let checkIn = forms + "/Cru Weekly Check-in (Responses) - Form Responses 1.csv"

    /// The `--map '...'` value a hint proposes.
    static func proposedMap(in stderr: String) -> String? {
        guard let start = stderr.range(of: "--map '") else { return nil }
        var value = ""
        var rest = stderr[start.upperBound...]
        // A quote inside the value is written '\'' as a shell reads it.
        while let quote = rest.firstIndex(of: "'") {
            value += rest[..<quote]
            guard rest[quote...].hasPrefix("'\\''") else { return value }
            value += "'"
            rest = rest[rest.index(quote, offsetBy: 4)...]
        }
        return nil
    }

    /// What importing `path` as `kind` on central-coast says on stderr, when it is refused as unreadable
    /// (65); the database, for what follows.
    static func refusal(_ path: String, as kind: String) throws -> (database: TestDatabase, stderr: String) {
        let database = try TestDatabase(importing: "central-coast")
        let result = try database.run(["import", kind, path])
        #expect(result.status == 65, "\(result.stderr)")
        return (database, result.stderr)
    }

    @Test(
        "a sheet whose headers name no column: the error names the sheet, lists its columns, the closest to each missing one and the --map line"
    )
    func headersToRename() throws {
        let path = TestEnvironment.fixture("headers/contacts.xlsx")
        let stderr = try Self.refusal(path, as: "students").stderr
        let lines = stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.first == "\(path):Contacts!1: error[missing-column]: required columns \"email\", \"first_name\", "
                + "\"last_name\" missing; the sheet has columns A \"Contact Name\", B \"Contact Number\", C \"City \"")
        #expect(
            lines.dropFirst().first == "  hint: closest: first_name and last_name: A \"Contact Name\", a whole name to "
                + "split; email: none. Add a column email; then --map 'Contact Name=first_name+last_name' loads it")
        #expect(!stderr.contains("students.csv"))
    }

    @Test("a header cell merged over two columns is named as merged, not as a column without a name")
    func mergedHeaderCell() throws {
        let path = TestEnvironment.fixture("headers/merged-header.xlsx")
        let (database, stderr) = try Self.refusal(path, as: "students")
        #expect(
            stderr.hasPrefix(
                "\(path):'Sign-ups'!B1: error[blank-header]: column B has no name: its header "
                    + "cell is part of the merged cell A1:B1 (\"Student Name\"), which names one column\n"
                    + "  hint: unmerge A1:B1 and give each of its columns a name of its own"), "\(stderr)")
        #expect(try database.count("select count(*) from people where email = 'ana.flores@calpoly.edu'") == 0)
    }

    /// The students of the interest form as stored: email, first and last name, phone, year, campus, ministries.
    static func interested(_ database: TestDatabase) throws -> [[String?]] {
        try database.connect().query(
            """
            select p.email, p.first_name, p.last_name, p.phone, p.school_year::text, c.code,
                   (select string_agg(m.code, ';' order by m.code) from person_ministries pm
                    join ministries m on m.id = pm.ministry_id where pm.person_id = p.id)
            from people p left join campuses c on c.id = p.campus_id
            where p.email in ('maria.delacruz@calpoly.edu', 'tnguyen22@calpoly.edu', 'hannah.obrien@cuesta.edu',
                              'mary.ann.smith@calpoly.edu', 'jcarter3@calpoly.edu', 'luis.vanderberg@calpoly.edu')
            order by p.email
            """
        ).texts
    }

    @Test("a Google Forms export loads as students with the --map line its error proposes, or with a saved map file")
    func formsAsStudents() throws {
        let (database, refused) = try Self.refusal(Self.interest, as: "students")
        let map = try #require(Self.proposedMap(in: refused), "\(refused)")
        #expect(
            map == "Full Name=first_name+last_name,What is your phone number?=phone,What year are you in school?="
                + "school_year,Which campus do you attend?=campus,Which ministries are you interested in?=ministries")

        let loaded = try database.run(["import", "students", Self.interest, "--map", map])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(
            loaded.stderr.contains(
                "\(Self.interest):5:3: warning[assumed-value]: \"Mary Ann Smith\" is read as "
                    + "first name \"Mary Ann\" and last name \"Smith\""), "\(loaded.stderr)")
        #expect(
            loaded.stderr.contains(
                "\(Self.interest):1:1: warning[unknown-column]: column \"Timestamp\" is not part of students"))
        let rows = try Self.interested(database)
        #expect(
            rows == [
                ["hannah.obrien@cuesta.edu", "Hannah", "O'Brien", nil, "3", "cuesta", "cru-cuesta"],
                ["jcarter3@calpoly.edu", "James", "Carter III", nil, "1", "calpoly", "aia-calpoly;cru-calpoly"],
                [
                    "luis.vanderberg@calpoly.edu", "Luis", "van der Berg", "+15595550137", "5", "calpoly",
                    "bridges-calpoly",
                ],
                [
                    "maria.delacruz@calpoly.edu", "Maria", "de la Cruz", "+15595550131", "1", "calpoly",
                    "cru-calpoly;destino-calpoly",
                ],
                ["mary.ann.smith@calpoly.edu", "Mary Ann", "Smith", "+15595550134", "4", "calpoly", "cru-calpoly"],
                ["tnguyen22@calpoly.edu", "Tyler", "Nguyen", "+15595550132", "2", "calpoly", "epic-calpoly"],
            ])

        let saved = try TestDatabase(importing: "central-coast")
        let mapFile = try saved.run(["import", "students", Self.interest, "--map-file", Self.forms + "/students.map"])
        #expect(mapFile.status == 0, "\(mapFile.stderr)")
        #expect(try Self.interested(saved) == rows)

        // The same map saved by Windows Notepad: a byte-order mark first, CRLF line ends.
        let notepad = "\u{FEFF}" + (try String(contentsOfFile: Self.forms + "/students.map", encoding: .utf8))
            .replacingOccurrences(of: "\n", with: "\r\n")
        let windowsMap = try scratch.writeFile("students.map", notepad)
        let fromNotepad = try TestDatabase(importing: "central-coast")
        let notepadLoad = try fromNotepad.run(["import", "students", Self.interest, "--map-file", windowsMap])
        #expect(notepadLoad.status == 0, "\(notepadLoad.stderr)")
        #expect(try Self.interested(fromNotepad) == rows)
    }

    @Test("a map file that maps one column twice names its line; a missing map file says so")
    func mapFileErrors() throws {
        let database = try TestDatabase(importing: "central-coast")
        let twice = try scratch.writeFile("twice.map", "# students\nFull Name=first_name+last_name\nWhat is your phone number?=phone\nPhone=phone\n")
        let refused = try database.run(["import", "students", Self.interest, "--map-file", twice])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(twice):4: Phone=phone: phone is mapped twice"), "\(refused.stderr)")
        let missing = try database.run(["import", "students", Self.interest, "--map-file", twice + ".nope"])
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("--map-file \(twice).nope: no such file, or it cannot be read"), "\(missing.stderr)")
    }

    @Test(
        "a Google Forms check-in loads as attendance with its map file: known people by phone and name, new ones added")
    func formsAsAttendance() throws {
        let (database, refused) = try Self.refusal(Self.checkIn, as: "attendance")
        #expect(
            Self.proposedMap(in: refused)
                == "Full Name=first_name+last_name,Which event are you at?=event,What year are you in school?=school_year"
        )
        let result = try database.run([
            "import", "attendance", Self.checkIn, "--map-file", Self.forms + "/attendance.map",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try database.connect().query(
                """
                select p.first_name, p.last_name, p.origin, to_char(a.checked_in_at at time zone 'America/Los_Angeles', 'HH24:MI:SS')
                from attendance a join people p on p.id = a.person_id join events e on e.id = a.event_id
                where e.code = 'cru-weekly-welcome' order by a.checked_in_at
                """
            ).texts == [
                ["Luca", "Dubois", nil, "18:56:40"], ["Ji-woo", "Jung", nil, "19:01:05"],
                ["Ella", "Vásquez", "check-in", "19:03:27"], ["Owen", "Park", "check-in", "19:09:58"],
            ])
    }

    @Test("--map splits a whole name as people write them, warns where it assumes, and refuses what it cannot split")
    func wholeNames() throws {
        let database = try TestDatabase(importing: "central-coast")
        let path = try scratch.writeFile(
            "names.csv",
            """
            Name,Email
            Maria de la Cruz,m1@example.edu
            "Nguyen, Tyler",m2@example.edu
            "King, Jr., Martin Luther",m3@example.edu
            "John Smith, Jr.",m4@example.edu
            Vincent van Gogh,m5@example.edu
            José García López,m6@example.edu
            Cher,m7@example.edu
            "Smith, Ann, Marie",m8@example.edu

            """)
        let result = try database.run([
            "import", "students", path, "--map", "Name=first_name+last_name",
            "--on-error", "skip",
        ])
        #expect(result.status == 1)
        let problems = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("  hint:") }.map(String.init)
        #expect(
            problems == [
                "\(path):7:1: warning[assumed-value]: \"José García López\" is read as first name \"José García\" and last name \"López\"",
                "\(path):8:1: error[missing-value]: name \"Cher\" has no last name",
                "\(path):9:1: error[type-error]: name \"Smith, Ann, Marie\" does not say which words are the last name",
            ], "\(result.stderr)")
        #expect(
            try database.connect().query(
                """
                select first_name, last_name from people where email like 'm_@example.edu' order by email
                """
            ).texts == [
                ["Maria", "de la Cruz"], ["Tyler", "Nguyen"], ["Martin Luther", "King Jr."], ["John", "Smith Jr."],
                ["Vincent", "van Gogh"], ["José García", "López"],
            ])
    }
}
