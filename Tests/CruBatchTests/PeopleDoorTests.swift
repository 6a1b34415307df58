import CruBatchTestSupport
import Foundation
import Testing

/// The `possible-duplicate` warning wherever people are added: two new rows of one file, a students
/// import against people known, walk-ins of a check-in sheet, passengers of ride requests, and `place`.
/// The warning names a known person by email, as it always has, and another row of the file by its
/// line; never anyone's phone.
@Suite("people matching at the door")
struct PeopleDoorTests {
    private let scratch = ScratchDirectory()

    @Test("two new rows of one file that are one person: the later warns, naming the earlier by line; --on-duplicate reject rejects it")
    func twoRowsOfOneFile() throws {
        let database = try TestDatabase()
        let file = try scratch.writeFile("new.csv", """
            email,first_name,last_name,phone
            elizabeth.ortega@calpoly.edu,Elizabeth,Ortega,805-555-0191
            bob.king@gmail.com,Bob,King,
            liz.ortega@gmail.com,Liz,Ortega,(805) 555-0191

            """)
        let warned = try database.run(["import", "students", file])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("new.csv:4:1: warning[possible-duplicate]: probably the same person as line 2 (Elizabeth Ortega): nickname: Liz / Elizabeth"),
                "\(warned.stderr)")
        #expect(!warned.stderr.contains("elizabeth.ortega@calpoly.edu") && !warned.stderr.contains("555"), "\(warned.stderr)")
        #expect(warned.stderr.components(separatedBy: "possible-duplicate").count == 2, "one warning: \(warned.stderr)")
        #expect(try database.count("select count(*) from people") == 3)

        let again = try TestDatabase()
        let rejected = try again.run(["import", "students", file, "--on-duplicate", "reject"])
        #expect(rejected.status == 1, "\(rejected.stderr)")
        #expect(rejected.stderr.contains("new.csv:4:1: error[possible-duplicate]"), "\(rejected.stderr)")
        #expect(try again.count("select count(*) from people") == 0, "an error writes nothing")
    }

    @Test("a Google Forms export where one student answered twice, from another address and with the name the other way round, warns on the later answer")
    func formAnsweredTwice() throws {
        let database = try TestDatabase(importing: "central-coast")
        let forms = TestEnvironment.fixture("google-forms")
        var export = try String(contentsOfFile: forms + "/Cru Interest Form (Responses) - Form Responses 1.csv", encoding: .utf8)
        if !export.hasSuffix("\n") { export += "\r\n" }
        export += "9/25/2026 8:14:09,tyler.nguyen.22@gmail.com,Tyler Nguyen,(559) 555-0132,Sophomore,Cal Poly San Luis Obispo,Epic Movement Cal Poly,\r\n"
        let file = try scratch.writeFile("Cru Interest Form (Responses) - Form Responses 1.csv", export)
        let lastLine = export.unicodeScalars.filter { $0 == "\n" }.count  // blank rows of the export counted
        let loaded = try database.run(["import", "students", file, "--map-file", forms + "/students.map"])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stderr.contains(":\(lastLine):2: warning[possible-duplicate]: probably the same person as line 3 (Tyler Nguyen)"),
                "\(loaded.stderr)")
    }

    @Test("a new row that is probably two records known names the strongest and counts the other")
    func twoRecordsAlike() throws {
        let database = try TestDatabase()
        let known = try scratch.writeFile("known.csv", """
            email,first_name,last_name,phone
            elizabeth.ward@calpoly.edu,Elizabeth,Ward,805-555-0201
            liz.ward@gmail.com,Liz,Ward,805-555-0201

            """)
        #expect(try database.run(["import", "students", known]).status == 0)
        let file = try scratch.writeFile("new.csv", "email,first_name,last_name,phone\nelizabeth.ward@cuesta.edu,Elizabeth,Ward,805-555-0201\n")
        let warned = try database.run(["import", "students", file])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("new.csv:2:1: warning[possible-duplicate]: probably the same person as elizabeth.ward@calpoly.edu"),
                "\(warned.stderr)")
        #expect(warned.stderr.contains("; 1 other record score 70 or more too (crubatch people duplicates lists them)"), "\(warned.stderr)")
    }

    @Test("a bulk load of more new people than the door compares says so once, on its first new row, and loads even under --on-duplicate reject")
    func bulkLoadIsNotComparedAndSaysSo() throws {
        let database = try TestDatabase()
        var text = "email,first_name,last_name\n"
        for n in 0...5_000 { text += "bulk\(n)@example.edu,Pat,Twin\n" }
        let file = try scratch.writeFile("bulk.csv", text)
        let loaded = try database.run(["import", "students", file, "--on-duplicate", "reject"])
        #expect(loaded.status == 0, "\(loaded.stderr.prefix(2_000))")
        #expect(loaded.stderr.contains("""
            bulk.csv:2:1: warning[possible-duplicate]: this run adds 5001 new people, more than the 5000 compared as they come: \
            none was compared with the people known or with each other
            """), "\(loaded.stderr.prefix(2_000))")
        #expect(loaded.stderr.components(separatedBy: "possible-duplicate").count == 2, "one warning")
        #expect(try database.count("select count(*) from people") == 5_001)
    }

    /// A student of central-coast with a phone, a sex and a name in the nickname table: their email,
    /// first name, last name, phone and sex.
    private func knownStudent(_ database: TestDatabase) throws
        -> (email: String, first: String, last: String, phone: String, sex: String) {
        let row = try #require(try database.connect().query("""
            select p.email, p.first_name, p.last_name, p.phone, initcap(p.sex) from people p
            where p.phone is not null and p.sex in ('male', 'female') and not p.is_leader and p.is_member
            and lower(p.first_name) in (select given_name from given_name_variants where variant in ('liz', 'jen', 'mike', 'alex'))
            order by p.email limit 1
            """).texts.first)
        return (row[0]!, row[1]!, row[2]!, row[3]!, row[4]!)
    }

    /// An address of the nickname and surname, letters only.
    private func address(_ short: String, _ last: String) -> String {
        (short + "." + last).lowercased().filter { $0.isASCII && ($0.isLetter || $0 == ".") } + "@example.com"
    }

    /// The nickname the table gives `first`.
    private func nickname(of first: String, _ database: TestDatabase) throws -> String {
        try #require(try database.connect().query("""
            select initcap(min(variant)) from given_name_variants where given_name = lower(\(first))
            and variant in ('liz', 'jen', 'mike', 'alex')
            """).text)
    }

    @Test("a walk-in of a check-in sheet who is probably a student known warns, naming them by email, and is added")
    func walkIn() throws {
        let database = try TestDatabase(importing: "central-coast")
        let student = try knownStudent(database)
        let short = try nickname(of: student.first, database)
        let event = try #require(try database.connect().query("select code from events order by starts_at limit 1").text)
        let sheet = try scratch.writeFile("checkin.csv", """
            event,email,first_name,last_name,phone,school_year,checked_in_at
            \(event),,\(short),\(student.last),\(student.phone),2,

            """)
        let result = try database.run(["import", "attendance", sheet, "--no-notify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("checkin.csv:2:3: warning[possible-duplicate]: probably the same person as \(student.email) (\(student.first) \(student.last))"),
                "\(result.stderr)")
        #expect(!result.stderr.contains(String(student.phone.suffix(4))), "the phone is never shown: \(result.stderr)")
        #expect(result.stdout.contains("added 1 walk-in"), "\(result.stdout)")
    }

    @Test("a passenger a ride request adds who is probably a student known warns, naming them by email")
    func passenger() throws {
        let database = try TestDatabase(importing: "central-coast")
        let student = try knownStudent(database)
        let short = try nickname(of: student.first, database)
        let requests = try scratch.writeFile("requests.csv", """
            event,email,first_name,last_name,phone,direction,pickup_location
            fall-retreat-2026,\(address(short, student.last)),\(short),\(student.last),\(student.phone),both,Yosemite Hall

            """)
        let result = try database.run(["import", "ride-requests", requests, "--no-notify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("requests.csv:2:2: warning[possible-duplicate]: probably the same person as \(student.email)"),
                "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@example.com'") == 1)
    }

    @Test("place warns of a new student who is probably a student known, as import does, and places them")
    func place() throws {
        let database = try TestDatabase(importing: "central-coast")
        let student = try knownStudent(database)
        let short = try nickname(of: student.first, database)
        let answers = try String(contentsOfFile: TestEnvironment.fixture("get-involved/answers.csv"), encoding: .utf8)
            .split(whereSeparator: \.isNewline)
        let file = try scratch.writeFile("answers.csv", answers[0] + "\n" + """
            9/20/2026 10:00:00,\(short),\(student.last),\(address(short, student.last)),\(student.phone),\(student.sex),2,Cal Poly San Luis Obispo,Cru Cal Poly,Weekday evenings

            """)
        let result = try database.run(["place", file, "--no-notify"])
        #expect(result.status <= 1, "\(result.stderr)")
        #expect(result.stderr.contains("answers.csv:2:4: warning[possible-duplicate]: probably the same person as \(student.email)"),
                "\(result.stderr)")
        #expect(try database.count("select count(*) from people where email like '%@example.com'") == 1)
    }
}
