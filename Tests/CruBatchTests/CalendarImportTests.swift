import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `import events FILE.ics`: Google Calendar, Outlook and Apple Calendar exports become events
/// through the same checks and merge as a CSV file, again and again without change, and come back
/// out as calendars whose occurrences are those of the source (expanded by Python, not crubatch).
@Suite("import events from iCalendar files")
struct CalendarImportTests {
    private let scratch = ScratchDirectory()

    /// Each fixture and the ministry it belongs to.
    static let calendars = [("google", "cru-calpoly"), ("outlook", "destino-calpoly"), ("apple", "epic-calpoly")]

    static func fixture(_ name: String) -> String { TestEnvironment.fixture("ics/\(name).ics") }

    /// Campuses and ministries only: every event in it came from a calendar.
    static func database() throws -> TestDatabase {
        let database = try TestDatabase()
        for kind in ["campuses", "ministries"] {
            let load = try database.run(["import", kind, TestEnvironment.fixture("central-coast/\(kind).csv"), "--quiet"])
            guard load.status == 0 else { throw TestSetupError("loading \(kind) failed: \(load.stderr)") }
        }
        return database
    }

    static func importCalendars(into database: TestDatabase) throws {
        for (name, ministry) in calendars {
            let result = try database.run(["import", "events", fixture(name), "--ministry", ministry])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(name): \(result.stderr)")
        }
    }

    /// Every event as `code|uid|name|start|end|zone|all day|location|rule|exceptions|ministries`, times local.
    static func rows(_ database: TestDatabase) throws -> [String] {
        let local: SQLFragment = #"'YYYY-MM-DD"T"HH24:MI'"#
        return try database.connect().query("""
            select concat_ws('|', e.code, e.uid, e.name, to_char(e.starts_at at time zone e.timezone, \(unescaped: local)),
                   to_char(e.ends_at at time zone e.timezone, \(unescaped: local)), e.timezone, e.all_day,
                   coalesce(e.location, ''), coalesce(e.recurrence, ''),
                   coalesce((select string_agg(to_char(x at time zone e.timezone, \(unescaped: local)), ';' order by x)
                             from unnest(e.exceptions) x), ''),
                   (select string_agg(m.code, ';' order by m.code) from event_ministries em
                    join ministries m on m.id = em.ministry_id where em.event_id = e.id))
            from events e order by e.starts_at, e.code
            """).rows.map { try $0.decode(String.self, 0) }
    }

    @Test("Google, Outlook and Apple exports import as these events: cancelled ones left out, times in their zones, rules kept")
    func expectedRows() throws {
        let database = try Self.database()
        try Self.importCalendars(into: database)
        #expect(try Self.rows(database) == [
            "2p4k9s7v1hq0c3m8e5r6t2ya1b-google.com-fa9f04e7|2p4k9s7v1hq0c3m8e5r6t2ya1b@google.com|Cru Weekly|2026-09-24T19:00|2026-09-24T21:00|America/Los_Angeles|f|Chumash Auditorium, University Union, San Luis Obispo, CA 93407, USA|FREQ=WEEKLY;WKST=SU;UNTIL=20261211T075959Z;BYDAY=TH|2026-10-15T19:00;2026-10-29T19:00;2026-11-26T19:00|cru-calpoly",
            "040000008200e00074c5b7101a82e00800000000a07e2d1c6e2edb-63d7f125|040000008200E00074C5B7101A82E00800000000A07E2D1C6E2EDB01000000000000000010000000D4F3E2B1A09C8D7E6F5A4B3C2D1E0F9A|Destino: Noche de Alabanza|2026-09-30T19:30|2026-09-30T21:00|America/Los_Angeles|f|University Union 220|FREQ=WEEKLY;UNTIL=20261210T033000Z;INTERVAL=1;BYDAY=WE;WKST=SU|2026-10-28T19:30;2026-11-25T19:30|destino-calpoly",
            "5e3b1c2a-9f4d-4c41-8a57-1d2f3e4a5b6c-77356d13|5E3B1C2A-9F4D-4C41-8A57-1D2F3E4A5B6C|Epic Large Group|2026-10-02T19:00|2026-10-02T21:00|America/Los_Angeles|f|Dexter Lawn, Cal Poly, San Luis Obispo, CA  93407, United States|FREQ=WEEKLY;UNTIL=20261212T075959Z|2026-11-27T19:00|epic-calpoly",
            "a6c9d4e1-2b3f-4a5c-9d8e-7f6a5b4c3d2e-c64c8bc0|A6C9D4E1-2B3F-4A5C-9D8E-7F6A5B4C3D2E|Mooncake Night|2026-10-03T19:00|2026-10-03T21:30|America/Los_Angeles|f|Mustang Lounge|||epic-calpoly",
            "0f3lr8d1v6q2n7s9k4h5g1c2aa-google.com-def18ffe|0f3lr8d1v6q2n7s9k4h5g1c2aa@google.com|Beach Day at Avila|2026-10-10T10:00|2026-10-10T15:00|America/Los_Angeles|f|Avila Beach, 3100 Avila Beach Dr, Avila Beach, CA 93424, USA|||cru-calpoly",
            "040000008200e00074c5b7101a82e00800000000c0ffee00c0ffee-dfd025fe|040000008200E00074C5B7101A82E00800000000C0FFEE00C0FFEEDB0100000000000000001000000011223344556677889900AABBCCDDEEFF|Llamada nacional de Destino|2026-10-14T20:00|2026-10-14T21:00|America/New_York|f|Microsoft Teams Meeting|||destino-calpoly",
            "2p4k9s7v1hq0c3m8e5r6t2ya1b-google.com-20261029t190000-2a9139a1|2p4k9s7v1hq0c3m8e5r6t2ya1b@google.com/20261029T190000|Cru Weekly: Halloween Edition|2026-10-30T19:00|2026-10-30T21:30|America/Los_Angeles|f|Chumash Auditorium|||cru-calpoly",
            "b7d0e5f2-3c4a-4b6d-8e9f-0a1b2c3d4e5f-853a5d50|B7D0E5F2-3C4A-4B6D-8E9F-0A1B2C3D4E5F|Epic Fall Retreat|2026-11-13T00:00|2026-11-16T00:00|America/Los_Angeles|t|Camp Ocean Pines, Cambria, CA|||epic-calpoly",
            "7m2q5w8e1r4t6y9u3i0o2p5a7s-google.com-cc5ede9a|7m2q5w8e1r4t6y9u3i0o2p5a7s@google.com|Fall Retreat|2026-11-21T00:00|2026-11-23T00:00|America/Los_Angeles|t|Camp Ocean Pines, 1473 Randall Dr, Cambria, CA 93428, USA|||cru-calpoly",
            "040000008200e00074c5b7101a82e00800000000b1a2c3d4e5f6db-b882d5be|040000008200E00074C5B7101A82E00800000000B1A2C3D4E5F6DB01000000000000000010000000AABBCCDDEEFF00112233445566778899|Acción de Gracias (sin reunión)|2026-11-26T00:00|2026-11-28T00:00|America/Los_Angeles|t||||destino-calpoly",
        ])
        let descriptions = try database.connect().query("select description from events where name like 'Destino: Noche%' or name = 'Beach Day at Avila' order by name").rows
        #expect(try descriptions.map { try $0.decode(String.self, 0) } == [
            "Spikeball, surfing and a short talk. Carpools leave from the Rec Center at 9:30; bring a towel, sunscreen and $5 for tacos.",
            "Una noche de alabanza y comunidad. ¡Trae a un amigo!\n\nWorship night in Spanish and English, everyone welcome.",
        ])
        #expect(try database.count("select count(*) from events where url = 'https://crucentralcoast.com/epic-calpoly'") == 1)
    }

    @Test("importing the same files again changes nothing, not even updated_at")
    func importAgain() throws {
        let database = try Self.database()
        try Self.importCalendars(into: database)
        let stamps = try database.connect().query("select string_agg(code || updated_at::text, ',' order by code) from events").text
        for (name, ministry) in Self.calendars {
            let again = try database.run(["import", "events", Self.fixture(name), "--ministry", ministry, "--format", "json"])
            let file = ((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
            #expect(file["inserted"] as? Int == 0 && file["updated"] as? Int == 0, "\(name): \(file)")
            #expect(file["unchanged"] as? Int == file["read"] as? Int)
        }
        #expect(try database.connect().query("select string_agg(code || updated_at::text, ',' order by code) from events").text == stamps)
    }

    @Test("export, then import the export: nothing changes, and Python expands it to the source calendar's occurrences")
    func exportThenImport() throws {
        let database = try Self.database()
        try Self.importCalendars(into: database)
        let before = try database.run(["export", "events"]).stdout
        for (name, ministry) in Self.calendars {
            let exported = try database.run(["export", "calendar", "--ministry", ministry])
            #expect(exported.status == 0, "\(exported.stderr)")
            let path = try scratch.writeFile("\(ministry).ics", exported.stdout)
            let again = try database.run(["import", "events", path, "--format", "json"])
            let file = ((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
            #expect(file["inserted"] as? Int == 0 && file["updated"] as? Int == 0, "\(name): \(file)")

            let source = ICalendarOracle.occurrences(in: try ICalendarOracle.expand(
                Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name)))), from: "2026-09-01", until: "2027-01-01"))
            let written = ICalendarOracle.occurrences(in: try ICalendarOracle.expand(Array(exported.stdout.utf8),
                                                                                  from: "2026-09-01", until: "2027-01-01"))
            #expect(!source.isEmpty)
            for uid in Set(source.map(\.uid)) {
                let floating = source.contains { $0.uid == uid && $0.offset == "floating" }
                /// An occurrence as instant, or as wall clock for a floating time; a moved occurrence is an
                /// event of its own, under the series' UID and the start it replaces.
                func moments(_ occurrences: [ICalendarOracle.Occurrence]) -> [String] {
                    occurrences.filter { $0.uid == uid || $0.uid.hasPrefix(uid + "/") }
                        .map { floating || $0.time == "all-day" ? "\($0.date) \($0.time)" : $0.utc }.sorted()
                }
                #expect(moments(written) == moments(source), "\(name) \(uid)")
            }
        }
        #expect(try database.run(["export", "events"]).stdout == before)
    }

    @Test("an event the calendar cancels is archived, left out of exports, and back when the calendar lists it again")
    func cancelledEventsAreArchived() throws {
        let database = try Self.database()
        func calendar(_ status: String) throws -> String {
            try scratch.writeFile("retreat-\(status).ics", """
                BEGIN:VCALENDAR\r
                VERSION:2.0\r
                BEGIN:VEVENT\r
                UID:winter-retreat@example.org\r
                SUMMARY:Winter Retreat\r
                DTSTART;VALUE=DATE:20270115\r
                DTEND;VALUE=DATE:20270118\r
                STATUS:\(status)\r
                END:VEVENT\r
                END:VCALENDAR\r

                """)
        }
        let code = "winter-retreat-example.org-" + String(try database.connect().query(
            "select encode(sha256('winter-retreat@example.org'::bytea), 'hex')").text!.prefix(8))
        #expect(try database.run(["import", "events", calendar("CONFIRMED"), "--ministry", "cru-calpoly"]).status == 0)
        #expect(try database.run(["export", "events"]).stdout.contains(code))

        let cancelled = try database.run(["import", "events", calendar("CANCELLED")])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.hasPrefix("events: archived \(code)\n"), "\(cancelled.stdout)")
        #expect(try database.count("select count(*) from events where code = \(code) and archived_at is not null") == 1)
        #expect(!(try database.run(["export", "events"]).stdout.contains(code)))
        #expect(!(try database.run(["export", "calendar", "--ministry", "cru-calpoly"]).stdout.contains("winter-retreat@example.org")))
        let again = try database.run(["import", "events", calendar("CANCELLED"), "--format", "json"])
        let file = ((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
        #expect(file["archived"] as? Int == 0, "an archived event is not archived twice: \(file)")

        let listed = try database.run(["import", "events", calendar("CONFIRMED"), "--format", "json"])
        let restored = ((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
        #expect(restored["restored"] as? Int == 1, "\(restored)")
        #expect(try database.count("select count(*) from events where code = \(code) and archived_at is null") == 1)
    }

    @Test("--campus gives the campus's ministries; a calendar crubatch wrote brings back its events, not its meetings")
    func ownersAndOwnCalendars() throws {
        let database = try TestDatabase(importing: "central-coast")
        let result = try database.run(["import", "events", Self.fixture("apple"), "--campus", "calpoly"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.connect().query("""
            select string_agg(m.code, ';' order by m.code) from events e join event_ministries em on em.event_id = e.id
            join ministries m on m.id = em.ministry_id where e.name = 'Mooncake Night'
            """).text == "aia-calpoly;bridges-calpoly;cru-calpoly;destino-calpoly;epic-calpoly;greek-calpoly")

        let calendar = try database.run(["export", "calendar", "--campus", "cuesta"]).stdout
        let path = try scratch.writeFile("cuesta.ics", calendar)
        let events = try database.count("select count(*) from events")
        let again = try database.run(["import", "events", path, "--format", "json"])
        let file = ((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
        #expect(calendar.contains("UID:group-cu-fr-men-tue@crubatch.cru.org"))
        #expect(file["read"] as? Int == calendar.components(separatedBy: "UID:event-").count - 1)
        #expect(file["inserted"] as? Int == 0)
        #expect(try database.count("select count(*) from events") == events)
    }

    @Test("every problem names its property's physical line, the database's checks too; nothing is written")
    func diagnostics() throws {
        let database = try Self.database()
        let path = try scratch.writeFile("broken.ics", """
            BEGIN:VCALENDAR
            VERSION:2.0
            BEGIN:VEVENT
            SUMMARY:No UID
            DTSTART:20261008T190000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:bad-start@example.org
            SUMMARY:Bad start
            DTSTART;TZID=America/Los_Angeles:20261308T190000
            END:VEVENT
            BEGIN:VEVENT
            UID:mars@example.org
            SUMMARY:On Mars
            DTSTART;TZID=Mars Standard Time:20261008T190000
            END:VEVENT
            BEGIN:VEVENT
            UID:untitled@example.org
            DTSTART:20261008T190000Z
            END:VEVENT
            BEGIN:VEVENT
            UID:backwards@example.org
            SUMMARY:Backwards
            DTSTART:20261008T190000Z
            DTEND:20261008T180000Z
            URL:ftp://example.org/x
            RRULE:FREQ=SOMETIMES
            END:VEVENT
            END:VCALENDAR

            """.replacingOccurrences(of: "\n", with: "\r\n"))
        let result = try database.run(["import", "events", path])
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("error[") }.map(String.init)
        #expect(errors == [
            "\(path):10: error[type-error]: DTSTART: \"20261308T190000\" is not a date-time (YYYYMMDDTHHMMSS)",
            "\(path):15: error[invalid-choice]: DTSTART: TZID \"Mars Standard Time\" is not a time zone: not a tz database name, a Windows zone name or display name, and the file has no VTIMEZONE for it",
            "\(path):17: error[missing-value]: SUMMARY is missing",
            "\(path):25: error[out-of-range]: ends_at is before starts_at",
            "\(path):26: error[type-error]: URL: \"ftp://example.org/x\" is not a web address",
            "\(path):27: error[type-error]: RRULE: \"FREQ=SOMETIMES\" is not a recurrence rule: FREQ=SOMETIMES is not one of DAILY, HOURLY, MINUTELY, MONTHLY, SECONDLY, WEEKLY, YEARLY",
        ], "\(result.stderr)")
        // An event without a UID is no error: it is given one, with a warning at its BEGIN:VEVENT.
        #expect(result.stderr.contains("\(path):3: warning[assumed-value]: the event has no UID: it is imported as event no-uid-"))
        #expect(try database.count("select count(*) from events") == 0)
    }

    @Test("Outlook's UTF-16 (\"Unicode\") calendars, little and big endian, import as their UTF-8 twin does")
    func utf16Calendars() throws {
        let utf8 = try Self.database()
        let outlook = Self.fixture("outlook")
        #expect(try utf8.run(["import", "events", outlook, "--ministry", "destino-calpoly"]).status == 0)
        let text = try String(contentsOfFile: outlook, encoding: .utf8)
        for (name, encoding) in [("le", String.Encoding.utf16LittleEndian), ("be", .utf16BigEndian)] {
            let mark: [UInt8] = name == "le" ? [0xFF, 0xFE] : [0xFE, 0xFF]
            let path = try scratch.folder(name) + "/outlook.ics"
            try Data(mark + Array(try #require(text.data(using: encoding)))).write(to: URL(fileURLWithPath: path))
            let database = try Self.database()
            let result = try database.run(["import", "events", path, "--ministry", "destino-calpoly"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(try Self.rows(database) == Self.rows(utf8), "\(name)")
        }
    }

    @Test("a file named .ics that holds no calendar is malformed-calendar (exit 65), with or without --campus")
    func notACalendar() throws {
        let database = try LoadedDatabase.get()
        for file in ["not-a-calendar.ics", "utf16-binary.ics"] {
            let path = TestEnvironment.fixture("hostile/" + file)
            for owner in [[], ["--campus", "calpoly"]] {
                let result = try database.run(["import", "events", path, "--wait"] + owner)
                #expect(result.status == 65, "\(file) \(owner): \(result.stderr)")
                #expect(result.stderr.contains("\(path):"), "\(result.stderr)")
                #expect(result.stderr.contains("error[malformed-calendar]"), "\(result.stderr)")
            }
        }
        let binary = try database.run(["import", "events", TestEnvironment.fixture("hostile/not-a-calendar.ics"), "--wait"])
        #expect(binary.stderr.contains("does not start with BEGIN:VCALENDAR: it is not an iCalendar file"))
    }

    @Test("an .ics is for events only, without --rejects; --campus and --ministry need one and must exist")
    func usage() throws {
        let database = try Self.database()
        let apple = Self.fixture("apple")
        let cases: [([String], String)] = [
            (["import", "groups", apple], "is an iCalendar file, which holds events"),
            (["import", "events", apple, "--rejects", "/tmp/r.csv"], "--rejects writes the rejected rows of a CSV file"),
            (["import", "events", apple, "--campus", "nowhere"], "no campus nowhere"),
            (["import", "events", TestEnvironment.fixture("central-coast/events.csv"), "--ministry", "cru-calpoly"],
             "--campus and --ministry say whose events an iCalendar file holds"),
            (["import", "events", apple, "--campus", "calpoly", "--ministry", "cru-calpoly"], "not both"),
        ]
        for (arguments, message) in cases {
            let result = try database.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try database.count("select count(*) from events") == 0)
    }
}
