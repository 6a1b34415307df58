import CruBatchTestSupport
import Foundation
import Testing

/// Calendars that follow the academic year: group meetings only inside their campus's terms and
/// never in a break, named after their ministry or campus, and the academic calendar itself. Every
/// calendar is expanded by Python's recurring-ical-events, not by crubatch.
@Suite("calendars and terms")
struct TermCalendarTests {
    static let window = (from: "2026-08-01", until: "2027-07-01")
    private let scratch = ScratchDirectory()

    /// Central Coast with a terms file, and a group's first and last meeting when given.
    func database(terms: String, meetings: (group: String, first: String, last: String)? = nil) throws -> TestDatabase {
        let database = try TestDatabase(importing: "central-coast")
        try scratch.writeFile("load/terms.csv", terms)
        if let meetings {
            // The group's row as exported, with its two (empty) last cells filled in.
            let exported = try database.run(["export", "groups"]).stdout.split(separator: "\r\n")
            let row = exported.first { $0.hasPrefix(meetings.group + ",") }!
            try scratch.writeFile("load/groups.csv", "\(exported[0])\n\(row.dropLast())\(meetings.first),\(meetings.last)\n")
        }
        let load = try database.run(["import", "--dir", try scratch.folder("load")])
        guard load.status == 0 else { throw TestSetupError("import failed: \(load.stderr)") }
        return database
    }

    /// Every `step` days from `first` through `last` (`YYYY-MM-DD`).
    static func days(from first: String, through last: String, every step: Int = 7) -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        var day = formatter.date(from: first)!
        var days: [String] = []
        while formatter.string(from: day) <= last {
            days.append(formatter.string(from: day))
            day = day.addingTimeInterval(Double(step) * 86_400)
        }
        return days
    }

    static func expand(_ calendar: String) throws -> (output: String, occurrences: [ICalendarOracle.Occurrence]) {
        let output = try ICalendarOracle.expand(Array(calendar.utf8), from: window.from, until: window.until)
        #expect(!output.contains("TZMISMATCH"), "a VTIMEZONE disagrees with the tz database:\n\(output)")
        return (output, ICalendarOracle.occurrences(in: output))
    }

    @Test("a term with a Thanksgiving and a winter break: no meeting in a break or outside the term, 18:30 local on both sides of each DST change")
    func meetingsFollowTheTerm() throws {
        let database = try database(terms: """
            campus,code,name,starts_on,ends_on,breaks
            cuesta,2026-27,Fall and Winter 2026-27,2026-09-21,2027-03-19,Thanksgiving 2026-11-23..2026-11-27; Winter 2026-12-12..2027-01-04
            """)
        let result = try database.run(["export", "calendar", "--group", "cu-fr-men-tue"])
        #expect(result.status == 0, "\(result.stderr)")
        let meetings = try Self.expand(result.stdout).occurrences.filter { $0.uid.hasPrefix("group-") }
        #expect(Set(meetings.map(\.uid)) == ["group-cu-fr-men-tue+2026-27@crubatch.cru.org"])

        // Every Tuesday of the term (2026-09-22 ... 2027-03-16) but those of the two breaks.
        let breakDays = Set(Self.days(from: "2026-11-23", through: "2026-11-27", every: 1)
            + Self.days(from: "2026-12-12", through: "2027-01-04", every: 1))
        let expected = Self.days(from: "2026-09-22", through: "2027-03-19").filter { !breakDays.contains($0) }
        #expect(meetings.map(\.date) == expected)
        #expect(expected.count == 22 && !expected.contains("2026-11-24") && expected.contains("2027-01-05"))
        for meeting in meetings {
            #expect(meeting.weekday == "Tue" && meeting.time == "18:30", "\(meeting)")
            // PDT until 2026-11-01, PST until 2027-03-14, then PDT again; the VTIMEZONE says the same.
            let daylight = meeting.date < "2026-11-01" || meeting.date > "2027-03-14"
            #expect(meeting.offset == (daylight ? "-07:00" : "-08:00"), "\(meeting)")
            #expect(meeting.vtimezoneOffset == meeting.offset, "\(meeting)")
        }
        #expect(meetings.contains { $0.date == "2026-10-27" && $0.utc == "2026-10-28T01:30:00Z" })
        #expect(meetings.contains { $0.date == "2026-11-03" && $0.utc == "2026-11-04T02:30:00Z" })
        #expect(meetings.contains { $0.date == "2027-03-16" && $0.utc == "2027-03-17T01:30:00Z" })
    }

    @Test("one series per term, inside the group's own first and last meeting; a campus without terms keeps meeting weekly")
    func seriesPerTermAndOverrides() throws {
        let terms = try String(contentsOfFile: TermsTests.terms, encoding: .utf8)
        let database = try database(terms: terms, meetings: ("cp-small-tue", "2026-10-06", "2027-04-20"))
        let calpoly = try database.run(["export", "calendar", "--campus", "calpoly"])
        #expect(calpoly.status == 0, "\(calpoly.stderr)")
        let small = try Self.expand(calpoly.stdout).occurrences.filter { $0.uid.hasPrefix("group-cp-small-tue") }
        let byTerm = Dictionary(grouping: small, by: \.uid).mapValues { $0.map(\.date) }
        #expect(byTerm == [
            "group-cp-small-tue+fall-2026@crubatch.cru.org": Self.days(from: "2026-10-06", through: "2026-12-08"),
            "group-cp-small-tue+winter-2027@crubatch.cru.org": Self.days(from: "2027-01-05", through: "2027-03-16"),
            "group-cp-small-tue+spring-2027@crubatch.cru.org": Self.days(from: "2027-03-30", through: "2027-04-20"),
        ])
        #expect(small.allSatisfy { $0.time == "19:00" && $0.weekday == "Tue" })
        // A Monday group of the same campus skips Martin Luther King Jr. Day and Presidents' Day.
        let monday = try Self.expand(calpoly.stdout).occurrences.filter { $0.uid == "group-cp-fr-men-mon+winter-2027@crubatch.cru.org" }
        #expect(monday.map(\.date) == Self.days(from: "2027-01-11", through: "2027-03-15").filter { $0 != "2027-01-18" && $0 != "2027-02-15" })

        // Allan Hancock College has no terms: every week from the first meeting on or after August 1.
        let hancock = try database.run(["export", "calendar", "--campus", "hancock"])
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        let academicYear = components.month! >= 8 ? components.year! : components.year! - 1
        let output = try ICalendarOracle.expand(Array(hancock.stdout.utf8), from: "\(academicYear)-08-01",
                                                until: "\(academicYear + 1)-08-01")
        let weekly = ICalendarOracle.occurrences(in: output).filter { $0.uid == "group-ah-fr-men-mon@crubatch.cru.org" }
        #expect(weekly.first.map { $0.date >= "\(academicYear)-08-01" && $0.date <= "\(academicYear)-08-07" } == true)
        #expect(weekly.map(\.date) == Self.days(from: weekly.first?.date ?? "", through: "\(academicYear + 1)-07-31"))
        #expect(weekly.count >= 52 && weekly.allSatisfy { $0.weekday == "Mon" && $0.time == "18:30" })
    }

    @Test("terms that --sync archives leave the calendars; undo brings them back")
    func archivedTerms() throws {
        let database = try database(terms: try String(contentsOfFile: TermsTests.terms, encoding: .utf8))
        let fall = try scratch.writeFile("fall.csv", "campus,code,name,starts_on,ends_on\ncalpoly,fall-2026,Fall Quarter 2026,2026-09-24,2026-12-11\n")
        let sync = try database.run(["import", "terms", fall, "--sync", "--scope", "campus=calpoly", "--format", "json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let run = try #require(((try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as! [String: Any])["files"]
            as! [[String: Any]])[0]["run_id"] as? Int)
        func uids(_ arguments: [String]) throws -> Set<String> {
            Set(try database.run(["export", "calendar"] + arguments).stdout.split(separator: "\r\n")
                .filter { $0.hasPrefix("UID:group-cp-small-tue") || $0.hasPrefix("UID:term-calpoly") }.map { String($0.dropFirst(4)) })
        }
        #expect(try uids(["--group", "cp-small-tue"]) == ["group-cp-small-tue+fall-2026@crubatch.cru.org"])
        #expect(try uids(["--campus", "calpoly", "--terms"]).allSatisfy { $0.hasPrefix("term-calpoly+fall-2026+") })

        #expect(try database.run(["undo", String(run)]).status == 0)
        #expect(try uids(["--group", "cp-small-tue"]).count == 3)
    }

    @Test("calendars are named after their ministry, campus or group")
    func names() throws {
        let database = try LoadedDatabase.get()
        func name(_ scope: [String]) throws -> String? {
            let result = try database.run(["export", "calendar"] + scope)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\r\n").first { $0.hasPrefix("X-WR-CALNAME:") }.map { String($0.dropFirst(13)) }
        }
        #expect(try name(["--ministry", "cru-calpoly"]) == "Cru Cal Poly — Cal Poly San Luis Obispo")
        #expect(try name(["--campus", "calpoly"]) == "Cru at Cal Poly San Luis Obispo")
        #expect(try name(["--group", "cp-small-tue"]) == "Tuesday Small Group — Cru Cal Poly")
        #expect(try name(["--campus", "calpoly", "--terms"]) == "Academic calendar — Cal Poly San Luis Obispo")
        #expect(try name([]) == "Cru Central Coast")
    }

    @Test("--terms: each term's first and last day and its breaks as all-day events, to stdout without --out")
    func academicCalendar() throws {
        let terms = try String(contentsOfFile: TermsTests.terms, encoding: .utf8)
        let database = try database(terms: terms)
        let result = try database.run(["export", "calendar", "--campus", "calpoly", "--terms"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("BEGIN:VTIMEZONE"))
        #expect(result.stdout.contains("DTSTART;VALUE=DATE:20261125\r\nDTEND;VALUE=DATE:20261128\r\n"))
        let days = try Self.expand(result.stdout).occurrences
        #expect(days.allSatisfy { $0.time == "all-day" })
        #expect(days.map { "\($0.date) \($0.uid)" }.sorted() == [
            "2026-09-24 term-calpoly+fall-2026+first-day@crubatch.cru.org",
            "2026-11-11 term-calpoly+fall-2026+break-1@crubatch.cru.org",
            "2026-11-25 term-calpoly+fall-2026+break-2@crubatch.cru.org",
            "2026-12-11 term-calpoly+fall-2026+last-day@crubatch.cru.org",
            "2027-01-05 term-calpoly+winter-2027+first-day@crubatch.cru.org",
            "2027-01-18 term-calpoly+winter-2027+break-1@crubatch.cru.org",
            "2027-02-15 term-calpoly+winter-2027+break-2@crubatch.cru.org",
            "2027-03-19 term-calpoly+winter-2027+last-day@crubatch.cru.org",
            "2027-03-29 term-calpoly+spring-2027+first-day@crubatch.cru.org",
            "2027-03-31 term-calpoly+spring-2027+break-1@crubatch.cru.org",
            "2027-05-31 term-calpoly+spring-2027+break-2@crubatch.cru.org",
            "2027-06-11 term-calpoly+spring-2027+last-day@crubatch.cru.org",
        ])
        #expect(result.stdout.contains("SUMMARY:Fall Quarter 2026: Thanksgiving\r\n"))

        let json = try database.run(["export", "calendar", "--campus", "calpoly", "--terms", "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let events = document["events"] as! [[String: Any]]
        #expect(document["name"] as? String == "Academic calendar — Cal Poly San Luis Obispo")
        #expect(events.count == 12 && events.allSatisfy { $0["all_day"] as? Bool == true })
        #expect(events.contains { $0["start"] as? String == "2026-11-25" && $0["end"] as? String == "2026-11-28" })
    }
}
