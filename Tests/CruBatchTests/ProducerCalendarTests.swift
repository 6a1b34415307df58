import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Calendars as thirteen producers write them (fixtures/ics/producers): each imports as Python's
/// icalendar read it into NAME.expected.json (the same instants, all-day dates, rules and excluded
/// occurrences), warns on exactly the lines that file names, repeats as the source once exported
/// (expanded by Python, not crubatch), and comes back from its own export unchanged.
@Suite("calendars as their producers write them")
struct ProducerCalendarTests {
    private let scratch = ScratchDirectory()

    static let folder = TestEnvironment.fixture("ics/producers")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".ics") }.sorted()

    /// NAME.expected.json, as oracle.py wrote it.
    struct Expected: Decodable {
        /// The days whose occurrences `occurrences_in` lists: from `start`, before `end`.
        struct Window: Decodable {
            let start: String
            let end: String
        }

        /// A line a robust reader warns about (skipped or not).
        struct Warning: Decodable {
            let line: Int
        }

        /// One VEVENT as icalendar reads it (see fixtures/README.md).
        struct Event: Decodable {
            let line: Int
            let uid: String?
            let recurrenceId: String?
            let summary: String?
            let status: String?
            let allDay: Bool
            let floating: Bool
            let start: String
            let end: String?
            let rrule: String?
            let excluded: [String]
            let occurrencesIn: [String]
            let description: String?
        }

        let window: Window
        let occurrenceLimit: Int
        let warningsExpected: [Warning]?
        let events: [Event]

        static func of(_ file: String) throws -> Expected {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let path = folder + "/" + file.dropLast(".ics".count) + ".expected.json"
            return try decoder.decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }

        /// The events a calendar shows (a cancelled one is not imported).
        var shown: [Event] { events.filter { $0.status?.uppercased() != "CANCELLED" } }
    }

    /// A stored event (its UID as export writes it), its times as instants (`...Z`) and as wall-clock
    /// times in its zone.
    struct Stored {
        let uid: String
        let name: String
        let allDay: Bool
        let zone: String
        let start: (utc: String, local: String)
        let end: (utc: String, local: String)?
        let rule: String?
        let exceptions: [(utc: String, local: String)]
        let description: String?

        /// A time as the oracle writes it: a date for an all-day event, a wall-clock time for a
        /// floating one, else the instant.
        static func moment(_ time: (utc: String, local: String), allDay: Bool, floating: Bool) -> String {
            allDay ? String(time.local.prefix(10)) : floating ? time.local : time.utc
        }
    }

    static func stored(_ database: TestDatabase) throws -> [Stored] {
        let utc: SQLFragment = #"'YYYY-MM-DD"T"HH24:MI:SS"Z"'"#
        let local: SQLFragment = #"'YYYY-MM-DD"T"HH24:MI:SS'"#
        return try database.connect().query(
            """
            select coalesce(e.uid, 'event-' || e.code || '@crubatch.cru.org'), e.name, e.all_day, e.timezone,
                   to_char(e.starts_at at time zone 'UTC', \(unescaped: utc)), to_char(e.starts_at at time zone e.timezone, \(unescaped: local)),
                   to_char(e.ends_at at time zone 'UTC', \(unescaped: utc)), to_char(e.ends_at at time zone e.timezone, \(unescaped: local)),
                   e.recurrence,
                   coalesce((select string_agg(to_char(x at time zone 'UTC', \(unescaped: utc)) || '|'
                                               || to_char(x at time zone e.timezone, \(unescaped: local)), ';' order by x)
                             from unnest(e.exceptions) x), ''),
                   e.description
            from events e where e.archived_at is null order by e.starts_at, e.code
            """
        ).rows.map { row in
            let exceptions = try row.decode(String.self, 9).split(separator: ";").map { pair in
                let parts = pair.split(separator: "|").map(String.init)
                return (utc: parts[0], local: parts[1])
            }
            let endUTC = try row.decode(String?.self, 6), endLocal = try row.decode(String?.self, 7)
            return Stored(
                uid: try row.decode(String.self, 0), name: try row.decode(String.self, 1),
                allDay: try row.decode(Bool.self, 2), zone: try row.decode(String.self, 3),
                start: (try row.decode(String.self, 4), try row.decode(String.self, 5)),
                end: endUTC.flatMap { utc in endLocal.map { (utc, $0) } }, rule: try row.decode(String?.self, 8),
                exceptions: exceptions, description: try row.decode(String?.self, 10))
        }
    }

    /// The stored row of an expected event: by UID, an override by its UID's prefix and its start, an
    /// event without a UID by its title.
    static func row(of event: Expected.Event, in rows: [Stored]) -> Stored? {
        let start = { (row: Stored) in
            Stored.moment(row.start, allDay: event.allDay, floating: event.floating) == event.start
        }
        guard let uid = event.uid else { return rows.first { $0.name == event.summary && start($0) } }
        if event.recurrenceId == nil { return rows.first { $0.uid == uid } }
        return rows.first { $0.uid.hasPrefix(uid + "/") && start($0) }
    }

    /// Text compared without the line ends' style and the white space at both ends.
    static func plain(_ text: String?) -> String {
        (text ?? "").replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What `import --format json` counted in its one file (`inserted`, `updated` ...).
    static func counts(of result: CommandResult) throws -> [String: Any] {
        ((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["files"]
            as? [[String: Any]])?.first ?? [:]
    }

    /// Campuses and ministries only, and the calendar imported for cru-calpoly, which must load: the
    /// database, what the import wrote on stderr, and the file's path as diagnostics name it.
    static func imported(_ file: String) throws -> (database: TestDatabase, stderr: String, path: String) {
        let database = try CalendarImportTests.database()
        let path = folder + "/" + file
        let result = try database.run(["import", "events", path, "--ministry", "cru-calpoly"])
        #expect(result.status == 0, "\(file): \(result.stderr)")
        return (database, result.stderr, path)
    }

    @Test(
        "imports the same instants, all-day dates, rules and excluded occurrences as icalendar reads, warning on the lines its expected.json names",
        arguments: files)
    func importsAsTheOracleReads(file: String) throws {
        let expected = try Expected.of(file)
        let (database, stderr, path) = try Self.imported(file)
        let warned = stderr.split(separator: "\n").filter {
            $0.hasPrefix(path + ":") && $0.contains(": warning[")
        }
        .compactMap { Int($0.dropFirst(path.count + 1).prefix { $0.isNumber }) }
        #expect(Set(warned) == Set((expected.warningsExpected ?? []).map(\.line)), "\(stderr)")
        #expect(!stderr.contains("error["), "\(stderr)")

        let rows = try Self.stored(database)
        #expect(rows.count == expected.shown.count, "\(rows.map(\.name))")
        for event in expected.shown {
            let label = "\(file) line \(event.line) \(event.summary ?? "")"
            guard let row = Self.row(of: event, in: rows) else {
                Issue.record("\(label): not stored; stored: \(rows.map { "\($0.name) \($0.start)" })")
                continue
            }
            func moment(_ time: (utc: String, local: String)) -> String {
                Stored.moment(time, allDay: event.allDay, floating: event.floating)
            }
            #expect(row.name == event.summary, "\(label)")
            #expect(row.allDay == event.allDay, "\(label)")
            #expect(moment(row.start) == event.start, "\(label) start")
            #expect(row.end.map(moment) == event.end, "\(label) end")
            #expect(row.rule == event.rrule, "\(label) rule")
            #expect(row.exceptions.map(moment).sorted() == event.excluded.sorted(), "\(label) excluded")
            if let description = event.description {
                #expect(Self.plain(row.description) == Self.plain(description), "\(label) description")
            }
        }
    }

    @Test("exported, repeats as the source (expanded by Python), and imported back changes nothing", arguments: files)
    func roundTrip(file: String) throws {
        let expected = try Expected.of(file)
        let database = try Self.imported(file).database
        let events = try database.run(["export", "events"]).stdout
        let exported = try database.run(["export", "calendar"])
        #expect(exported.status == 0, "\(exported.stderr)")

        let expansion = try ICalendarOracle.expand(
            Array(exported.stdout.utf8), from: expected.window.start,
            until: expected.window.end)
        #expect(!expansion.contains("TZMISMATCH"), "\(expansion)")
        let occurrences = ICalendarOracle.occurrences(in: expansion)
        let rows = try Self.stored(database)
        for event in expected.shown where event.recurrenceId == nil {
            guard let uid = event.uid ?? Self.row(of: event, in: rows)?.uid else {
                Issue.record("\(file) line \(event.line): not stored")
                continue
            }
            let shown = occurrences.filter { $0.uid == uid || $0.uid.hasPrefix(uid + "/") }.map { occurrence in
                occurrence.time == "all-day"
                    ? occurrence.date
                    : event.floating ? "\(occurrence.date)T\(occurrence.time):00" : occurrence.utc
            }.sorted()
            #expect(Array(shown.prefix(expected.occurrenceLimit)) == event.occurrencesIn, "\(file) line \(event.line)")
        }

        let path = try scratch.writeFile(file, exported.stdout)
        let again = try database.run(["import", "events", path, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let counts = try Self.counts(of: again)
        for change in ["inserted", "updated", "restored", "archived"] {
            #expect(counts[change] as? Int == 0, "\(file) \(change): \(counts)")
        }
        #expect(try database.run(["export", "events"]).stdout == events)
        #expect(try database.run(["export", "calendar"]).stdout == exported.stdout)
    }

    // Each producer's quirk, on its own.

    @Test("an all-day series' EXDATE written as midnight in another zone excludes its own date (Exchange 2010)")
    func allDayExceptionsAreDates() throws {
        let database = try Self.imported("exchange2010-allday-exdate.ics").database
        let study = try #require(try Self.stored(database).first { $0.name == "LSP Bible Study Day" })
        #expect(study.exceptions.map { $0.local } == ["2024-07-15T00:00:00"])
        let calendar = try database.run(["export", "calendar"]).stdout
        let mondays = ICalendarOracle.occurrences(
            in: try ICalendarOracle.expand(
                Array(calendar.utf8), from: "2024-06-01",
                until: "2025-01-01")
        )
        .filter { $0.uid == study.uid }.map(\.date)
        #expect(
            mondays == [
                "2024-07-01", "2024-07-08", "2024-07-22", "2024-07-29", "2024-08-05", "2024-08-12",
                "2024-08-19", "2024-08-26",
            ])
    }

    @Test(
        "Microsoft CDO's invitations, without UIDs and in a zone only their VTIMEZONE defines, import as the same events every time"
    )
    func cdoInvitations() throws {
        let (database, stderr, file) = try Self.imported("cdo-exchange2003-request.ics")
        for line in [21, 53] {
            #expect(
                stderr.contains(
                    "\(file):\(line): warning[assumed-value]: the event has no UID: it is imported as event no-uid-"),
                "\(stderr)")
        }
        let rows = try Self.stored(database)
        // 20:00 in Germany: 18:00 UTC in summer time, 19:00 UTC once it ends (25 October).
        #expect(rows.map(\.start.utc) == ["2026-10-07T18:00:00Z", "2026-11-12T13:00:00Z"])
        #expect(rows.first?.exceptions.map(\.utc) == ["2026-11-04T19:00:00Z"])
        let again = try database.run(["import", "events", file, "--format", "json"])
        let counts = try Self.counts(of: again)
        #expect(counts["unchanged"] as? Int == 2, "\(counts)")
    }

    @Test("Outlook's display names as TZIDs are the zones they name")
    func outlookDisplayNames() throws {
        let database = try Self.imported("outlook2007-display-tzid.ics").database
        #expect(
            try Self.stored(database).map(\.zone) == ["America/Los_Angeles", "America/New_York", "America/Los_Angeles"])
    }

    @Test(
        "a line that lost its folding space costs that line, with a warning, not the calendar (Google, Zoom via Exchange)"
    )
    func lostFoldingSpace() throws {
        let (database, stderr, google) = try Self.imported("google-lost-fold-space.ics")
        #expect(
            stderr.contains(
                "\(google):214: warning[skipped-line]: \"&nbsp; And a non-breaking space.\" is not a content line (NAME:value)"
            ),
            "\(stderr)")
        #expect(try Self.stored(database).count == 20)
        let zoom = try Self.imported("zoom-exchange-unfolded.ics").database
        #expect(try Self.stored(zoom).first?.description?.hasSuffix("&nbsp;&n") == true)
    }

    @Test("an all-day event keeps its zone through export and import (Google Calendar in Pacific/Auckland)")
    func allDayZoneRoundTrip() throws {
        let database = try Self.imported("google-auckland-allday.ics").database
        let calendar = try database.run(["export", "calendar", "--ministry", "cru-calpoly"]).stdout
        let path = try scratch.writeFile("auckland.ics", calendar)
        let again = try database.run(["import", "events", path, "--ministry", "cru-calpoly", "--format", "json"])
        let counts = try Self.counts(of: again)
        #expect(counts["unchanged"] as? Int == 4 && counts["updated"] as? Int == 0, "\(counts)")
        let camp = try #require(try Self.stored(database).first { $0.name == "Easter Camp" })
        #expect(camp.zone == "Pacific/Auckland")
        #expect(camp.start.local == "2027-03-26T00:00:00")
    }
}
