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
            fall-back,Fall Back,2026-11-01T01:30:00-07:00,2026-11-01T01:15:00-08:00,cru-calpoly

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
            // 01:30 PDT to 01:15 PST, when the clocks fall back: later, but a calendar shows it ending first.
            let before: Substring = "\(path):5:4: error[out-of-range]: ends_at is before starts_at"
            #expect(errors == ["\(path):3:4: \(message)", "\(path):4:4: \(message)", before],
                    "\(command): \(result.stderr)")
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

    @Test("an event stored with its end at its start: nightly and export calendar write every other event and name it")
    func storedBadEventIsLeftOut() throws {
        let database = try TestDatabase(importing: "central-coast")
        // Older data, or SQL past import's checks: the table's own check allows an end equal to the start.
        try database.connect().execute("update events set ends_at = starts_at where code = 'aia-beach-day'")
        let events = try database.count("select count(*) from events")
        let out = try scratch.folder()

        let nightly = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(nightly.status == 1, "\(nightly.stderr)")
        let reason = "end 20261003T100000 is not after start 20261003T100000"
        #expect(nightly.stderr.contains("crubatch: left event \"aia-beach-day\" out of calendars/all.ics: \(reason)"),
                "\(nightly.stderr)")
        let folder = out + "/latest"
        let manifestData = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let manifest = try JSONSerialization.jsonObject(with: manifestData) as? [String: Any]
        let errors = manifest?["errors"] as? [[String: Any]] ?? []
        let row = "event \"aia-beach-day\""
        #expect(errors.map { "\($0["file"] ?? "")|\($0["row"] ?? "")" }
                == ["calendars/all.ics|\(row)", "calendars/calpoly.ics|\(row)"], "\(errors)")
        #expect(errors.allSatisfy { ($0["error"] as? String)?.contains(reason) == true })
        let files = manifest?["files"] as? [[String: Any]] ?? []
        let all = try String(contentsOfFile: folder + "/calendars/all.ics", encoding: .utf8)
        let calpoly = try String(contentsOfFile: folder + "/calendars/calpoly.ics", encoding: .utf8)
        #expect(files.first { $0["file"] as? String == "calendars/all.ics" }?["rows"] as? Int
                == all.components(separatedBy: "BEGIN:VEVENT").count - 1)
        #expect(all.components(separatedBy: "UID:event-").count - 1 == events - 1)
        #expect(!all.contains("event-aia-beach-day@") && !calpoly.contains("event-aia-beach-day@"))
        #expect(calpoly.contains("UID:event-cru-weekly-welcome@crubatch.cru.org"))

        let calendar = out + "/everything.ics"
        let single = try database.run(["export", "calendar", "--out", calendar])
        #expect(single.status == 1, "\(single.stderr)")
        #expect(single.stderr.contains("crubatch: left event \"aia-beach-day\" out: \(reason)"), "\(single.stderr)")
        #expect(try String(contentsOfFile: calendar, encoding: .utf8) == all)

        let json = try database.run(["export", "calendar", "--format", "json"])
        #expect(json.status == 1, "\(json.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let leftOut = document?["left_out"] as? [[String: Any]] ?? []
        #expect(leftOut.map { "\($0["kind"] ?? "")|\($0["code"] ?? "")" } == ["event|aia-beach-day"], "\(json.stdout)")
        let uids = (document?["events"] as? [[String: Any]] ?? []).compactMap { $0["uid"] as? String }
        #expect(uids.filter { $0.hasPrefix("event-") }.count == events - 1)
        #expect(!uids.contains("event-aia-beach-day@crubatch.cru.org"))
    }
}
