import CruBatchTestSupport
import Foundation
import Testing

/// An event must end after it starts: import refuses one that does not (a CSV row, or an .ics whose
/// start falls in the hour daylight saving skips), and an export leaves out such a row that is already
/// stored, writes the rest and says which it left out.
@Suite("event times")
struct EventTimesTests {
    private let scratch = ScratchDirectory()

    @Test("a CSV event that ends when it starts is refused by validate and import at its line and column")
    func csvEndEqualsStart() throws {
        let database = try CalendarImportTests.database()
        let path = try scratch.writeFile("events.csv", """
            code,name,starts_at,ends_at,ministries
            good-night,Good Night,2026-10-08T19:00,2026-10-08T21:00,cru-calpoly
            no-length,No Length,2026-10-09T19:00,2026-10-09T19:00,cru-calpoly
            all-day,One Day,2026-10-10,2026-10-10,cru-calpoly

            """)
        let allDay = try scratch.writeFile("all-day.csv", """
            code,name,starts_at,ends_at,all_day,ministries
            one-day,One Day,2026-10-10,2026-10-10,yes,cru-calpoly

            """)
        for command in ["validate", "import"] {
            let result = try database.run([command, "events", path])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.contains("error[") }
            let message = "error[out-of-range]: ends_at is the same time as starts_at: an event ends after it starts"
            #expect(errors == ["\(path):3:4: \(message)", "\(path):4:4: \(message)"], "\(command): \(result.stderr)")
        }
        #expect(try database.count("select count(*) from events") == 0)
        // An all-day event may end on the day it starts.
        let loaded = try database.run(["import", "events", allDay])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try database.count("select count(*) from events") == 1)
    }

    @Test("an .ics event that starts in the hour the clocks skip (so ends when it starts) is refused at DTSTART's line")
    func springForwardGap() throws {
        let database = try CalendarImportTests.database()
        let path = TestEnvironment.fixture("hostile/dst-gap.ics")
        for arguments in [["validate", "events", path], ["import", "events", path, "--ministry", "cru-calpoly"]] {
            let result = try database.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.contains("error[") }
            #expect(errors == [
                "\(path):7: error[out-of-range]: starts_at 2027-03-14T02:30 does not exist in America/Los_Angeles "
                    + "(the clocks skip that hour) and is read as 03:30, which is not before ends_at 2027-03-14T03:30",
            ], "\(arguments): \(result.stderr)")
        }
        let json = try database.run(["validate", "--format", "json", "events", path])
        #expect(json.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let diagnostics = document?["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.map { "\($0["code"] ?? ""):\($0["line"] ?? "")" } == ["out-of-range:7"], "\(json.stdout)")
        #expect(try database.count("select count(*) from events") == 0)
    }
}
