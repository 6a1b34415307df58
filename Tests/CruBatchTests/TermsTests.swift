import CruBatchTestSupport
import Foundation
import Testing

/// The terms kind: campuses' academic calendars with their breaks, imported, checked and exported
/// like every kind; and a group's own first and last meeting.
@Suite("terms")
struct TermsTests {
    static let terms = TestEnvironment.fixture("terms/terms.csv")
    private let scratch = ScratchDirectory()

    @Test("terms import, import again unchanged, and export in the form they were typed: one date for one day, breaks by date")
    func importAndExport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let first = try database.run(["import", "terms", Self.terms])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("terms     4         4        0         0          0         0         0"), "\(first.stdout)")
        let again = try database.run(["import", "terms", Self.terms])
        #expect(again.stdout.contains("terms     4         0        0         0          4         0         0"), "\(again.stdout)")

        let exported = try database.run(["export", "terms"])
        #expect(exported.status == 0)
        #expect(exported.stdout == """
            campus,code,name,starts_on,ends_on,breaks\r
            calpoly,fall-2026,Fall Quarter 2026,2026-09-24,2026-12-11,Veterans Day 2026-11-11; Thanksgiving 2026-11-25..2026-11-27\r
            calpoly,spring-2027,Spring Quarter 2027,2027-03-29,2027-06-11,Cesar Chavez Day 2027-03-31; Memorial Day 2027-05-31\r
            calpoly,winter-2027,Winter Quarter 2027,2027-01-05,2027-03-19,Martin Luther King Jr. Day 2027-01-18; Presidents' Day 2027-02-15\r
            cuesta,2026-27,Academic Year 2026-27,2026-08-17,2027-05-21,Thanksgiving 2026-11-23..2026-11-27; Winter 2026-12-12..2027-01-18; Spring Break 2027-03-22..2027-03-26\r

            """)

        // Other spellings of the same breaks, in another order, change nothing.
        let retyped = try scratch.writeFile("retyped.csv", """
            campus,term,name,first day of classes,last day of classes,breaks
            calpoly,fall-2026,Fall Quarter 2026,9/24/2026,2026-12-11,Thanksgiving 2026-11-25 to 11/27/2026;Veterans Day 2026-11-11..2026-11-11
            """)
        #expect(try database.run(["import", "terms", retyped]).stdout.contains("terms     1         0        0         0          1         0         0"))
    }

    @Test("export, import into a fresh database, export again: the same bytes")
    func roundTrip() throws {
        let source = try TestDatabase(importing: "central-coast")
        #expect(try source.run(["import", "terms", Self.terms]).status == 0)
        let folder = try scratch.folder()
        #expect(try source.run(["export", "terms", "--out", folder + "/terms.csv"]).status == 0)
        let fresh = try TestDatabase(importing: "central-coast")
        let load = try fresh.run(["import", "terms", folder + "/terms.csv"])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try fresh.run(["export", "terms"]).stdout == String(contentsOfFile: folder + "/terms.csv", encoding: .utf8))
    }

    @Test("a term must end after it starts, with every break inside it; each problem names its line and cell")
    func checks() throws {
        let database = try LoadedDatabase.get()
        let path = try scratch.writeFile("terms.csv", """
            campus,code,name,starts_on,ends_on,breaks
            calpoly,fall-2026,Fall 2026,2026-09-24,2026-12-11,Thanksgiving 2026-11-25..2026-11-27
            calpoly,backwards,Backwards,2026-12-11,2026-09-24,
            calpoly,one-day,One Day,2026-09-24,2026-09-24,
            calpoly,late-break,Late Break,2026-09-24,2026-12-11,Thanksgiving 2026-11-25..2026-11-27; Winter 2026-12-12..2027-01-04
            calpoly,upside-down,Upside Down,2026-09-24,2026-12-11,Thanksgiving 2026-11-27..2026-11-25
            calpoly,no-dates,No Dates,2026-09-24,2026-12-11,Thanksgiving
            calpoly,no-name,No Name,2026-09-24,2026-12-11,2026-11-25..2026-11-27
            nowhere,fall-2026,Fall 2026,2026-09-24,2026-12-11,
            calpoly,fall-2026,Fall 2026 again,2026-09-24,2026-12-11,
            """)
        let result = try database.run(["validate", "terms", path])
        #expect(result.status == 1)
        let expected = [
            "\(path):3:5: error[out-of-range]: ends_on is not after starts_on",
            "\(path):4:5: error[out-of-range]: ends_on is not after starts_on",
            "\(path):5:6: error[out-of-range]: Winter (2026-12-12..2027-01-04) falls outside starts_on..ends_on, 2026-09-24..2026-12-11",
            "\(path):6:6: error[out-of-range]: breaks: Thanksgiving ends (2026-11-25) before it starts (2026-11-27)",
            "\(path):7:6: error[type-error]: breaks: \"Thanksgiving\" has no date",
            "\(path):8:6: error[type-error]: breaks: \"2026-11-25..2026-11-27\" is not a name with its days",
            "\(path):9:1: error[unknown-reference]: campus \"nowhere\" does not exist",
            "\(path):10:2: error[duplicate-key]: code \"calpoly, fall-2026\" appears more than once in the file (first on line 2)",
        ]
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("error[") }.map(String.init)
        #expect(errors == expected, "\(result.stderr)")
    }

    @Test("a group's last meeting must not come before its first")
    func groupMeetingDates() throws {
        let database = try LoadedDatabase.get()
        let exported = try database.run(["export", "groups"]).stdout
        #expect(exported.hasPrefix("code,ministry,name,day,time,location,audience,sex,capacity,leaders,description,first_meeting,last_meeting\r\n"))
        let lines = exported.split(separator: "\r\n")
        let (header, row) = (lines[0], lines.first { $0.hasPrefix("cp-small-tue,") }!)
        let path = try scratch.writeFile("groups.csv", header + "\n" + row.dropLast(1) + "2026-10-06,2026-10-05\n")
        let result = try database.run(["validate", "groups", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):2:13: error[out-of-range]: last_meeting is before first_meeting"), "\(result.stderr)")
    }

    @Test("nightly writes data/terms.csv like every kind")
    func nightly() throws {
        let database = try TestDatabase(importing: "central-coast")
        #expect(try database.run(["import", "terms", Self.terms]).status == 0)
        let out = try scratch.folder("nightly")
        let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(result.status == 0, "\(result.stderr)")
        let terms = try String(contentsOfFile: out + "/latest/data/terms.csv", encoding: .utf8)
        #expect(terms == (try database.run(["export", "terms"]).stdout))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/latest/manifest.json"))) as! [String: Any]
        #expect((manifest["files"] as! [[String: Any]]).contains { $0["file"] as? String == "data/terms.csv" && $0["rows"] as? Int == 4 })
    }
}
