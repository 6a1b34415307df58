import Foundation
import Testing

@testable import ICalendar

/// The iCalendar reader: unfolding, content lines and parameters, structure errors with their
/// line, typed event values, time zones by every name calendars use, and reading back what the
/// writer wrote.
@Suite struct ReaderTests {
    typealias Local = CalendarEvent.LocalDateTime

    static func calendar(_ lines: [String], lineEnd: String = "\r\n") -> [UInt8] {
        Array((lines.joined(separator: lineEnd) + lineEnd).utf8)
    }

    static func events(_ body: [String], header: [String] = []) throws -> [ICalendarFile.Event] {
        try ICalendarFile(bytes: calendar(["BEGIN:VCALENDAR", "VERSION:2.0"] + header + body + ["END:VCALENDAR"])).events
    }

    // MARK: content lines

    @Test func foldedLinesAreJoinedAndKeepTheirFirstPhysicalLine() throws {
        // "Café" folded inside the two bytes of "é", once with a space and once with a tab.
        var bytes = Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Caf".utf8) + [0xC3, 0x0D, 0x0A, 0x20, 0xA9]
        bytes += Array(" night\r\nLOCATION:Dexter\r\n\t Lawn\r\nUID:a\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        let lines = try ICalendarReader.contentLines(of: bytes).map { try $0.get() }
        #expect(lines.map(\.name) == ["BEGIN", "BEGIN", "SUMMARY", "LOCATION", "UID", "END", "END"])
        #expect(lines.map(\.line) == [1, 2, 3, 5, 7, 8, 9])
        #expect(lines[2].value == "Café night")
        #expect(lines[3].value == "Dexter Lawn")
    }

    @Test func parametersAreSplitQuotedAndDecoded() throws {
        let line = try ICalendarReader.parse(Array(#"dtStart;tzid="Pacific Standard Time";X-A=one,"t:w;o";X-B=^'hi^'^n:20261008T190000"#.utf8), line: 4)
        #expect(line.name == "DTSTART")
        #expect(line.parameter("TZID") == "Pacific Standard Time")
        #expect(line.parameters["X-A"] == ["one", "t:w;o"])
        #expect(line.parameter("X-B") == "\"hi\"\n")
        #expect(line.value == "20261008T190000")
        #expect(line.line == 4)
        // A colon inside the value belongs to it.
        #expect(try ICalendarReader.parse(Array("URL:https://cru.org/a?b=c".utf8), line: 1).value == "https://cru.org/a?b=c")
    }

    @Test("a broken structure names its line", arguments: [
        (["SUMMARY:x"], 1, "not an iCalendar file"),
        (["BEGIN:VCALENDAR", "BEGIN:VEVENT", "END:VTODO", "END:VCALENDAR"], 3, "closes BEGIN:VEVENT of line 2"),
        (["BEGIN:VCALENDAR", "BEGIN:VEVENT", "SUMMARY:x"], 2, "never closed"),
        (["BEGIN:VCALENDAR", "END:VCALENDAR", "this is not a property"], 3, "is not a content line"),
        (["BEGIN:VCALENDAR", "END:VCALENDAR", "SUMMARY:late"], 3, "after END:VCALENDAR"),
        (["BEGIN:VEVENT", "END:VEVENT"], 1, "outside BEGIN:VCALENDAR"),
    ])
    func structureErrors(lines: [String], line: Int, message: String) {
        do {
            _ = try ICalendarFile(bytes: Self.calendar(lines, lineEnd: "\n"))
            Issue.record("no error for \(lines)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test("UTF-16 with a byte order mark, either endian, reads as its UTF-8; broken UTF-16 names its line")
    func utf16() throws {
        let text = "BEGIN:VCALENDAR\r\nX-WR-CALNAME:Café ☕ 🎉\r\nEND:VCALENDAR\r\n"
        let little: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for bytes in [little, big] {
            #expect(ICalendarReader.looksLikeICalendar(bytes))
            #expect(try ICalendarReader.utf8Text(of: bytes) == Array(text.utf8))
        }
        // A lone high surrogate on line 2, and a file cut in the middle of a code unit.
        let loneSurrogate = Array(little[..<36]) + [0x00, 0xD8, 0x41, 0x00] + Array(little[36...])
        #expect(throws: ICalendarSyntaxError(line: 2, message: "the file starts with a UTF-16 byte order mark, "
                                             + "and this line is not UTF-16 text")) {
            try ICalendarReader.components(of: loneSurrogate)
        }
        #expect(throws: ICalendarSyntaxError.self) { try ICalendarReader.utf8Text(of: Array(little.dropLast())) }
    }

    @Test("a line that cannot be read is its component's problem: skipped with the lines folded onto it, the rest kept")
    func unreadableLinesAreSkipped() throws {
        let file = try ICalendarFile(bytes: Self.calendar([
            "BEGIN:VCALENDAR", "this is not a property",
            "BEGIN:VEVENT", "UID:a", "DESCRIPTION:Dial in:", "&nbsp; lost its folding space", " and folded on", "SUMMARY:Kept",
            #"DTSTART;TZID="Pacific:20261008T190000"#, "LOCATION", "DTSTART:20261008T190000Z",
            "BEGIN:VALARM", "TRIGGER", "END:VALARM", "END:VEVENT",
            "END:VCALENDAR",
        ]))
        #expect(file.unreadableLines.map(\.line) == [2])
        let event = try #require(file.events.first)
        #expect(event.unreadableLines.map(\.line) == [6, 9, 10, 13])
        #expect(event.unreadableLines.map(\.message).contains { $0.contains("is not a content line") })
        #expect(event.unreadableLines.map(\.message).contains { $0.contains("never closed") })
        #expect(event.unreadableLines.map(\.message).contains { $0.contains("has no ':'") })
        #expect(event.description?.value == "Dial in:")
        #expect(event.summary?.value == "Kept")
        #expect(event.start?.value == .utc(Local(year: 2026, month: 10, day: 8, hour: 19)))
        // Bytes that are not UTF-8 are one unreadable line; a NUL byte is no text at all, and stops the file.
        let latin1 = try ICalendarFile(bytes: Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:caf".utf8) + [0xE9]
            + Array("\r\nUID:b\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8))
        #expect(latin1.events.first?.unreadableLines == [ICalendarSyntaxError(line: 3, message: "not valid UTF-8 text")])
        #expect(latin1.events.first?.uid?.value == "b")
    }

    @Test func aNulByteStopsTheFile() {
        #expect(throws: ICalendarSyntaxError.self) {
            try ICalendarReader.components(of: Array("BEGIN:VCALENDAR\r\nSUMMARY:a".utf8) + [0] + Array("\r\nEND:VCALENDAR".utf8))
        }
        #expect(ICalendarReader.looksLikeICalendar([0xEF, 0xBB, 0xBF] + Array("\r\nbegin:vcalendar\r\n".utf8)))
        #expect(!ICalendarReader.looksLikeICalendar(Array("code,name\n".utf8)))
    }

    // MARK: events

    @Test func eventPropertiesAreTypedAndLocated() throws {
        let events = try Self.events([
            "BEGIN:VEVENT",
            "UID:abc@google.com",
            #"SUMMARY:Rides\, snacks\; and a back\\slash"#,
            #"DESCRIPTION:Line one\nLine two\NEnd"#,
            "LOCATION:Dexter Lawn",
            "URL;VALUE=URI:https://cru.org/e",
            "DTSTART;TZID=America/Los_Angeles:20260929T190000",
            "DURATION:PT1H30M",
            "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261216T075959Z",
            "EXDATE;TZID=America/Los_Angeles:20261124T190000,20261201T190000",
            "EXDATE:20261209T030000Z",
            "STATUS:confirmed",
            "BEGIN:VALARM",
            "DESCRIPTION:Reminder",
            "TRIGGER:-PT15M",
            "END:VALARM",
            "END:VEVENT",
        ])
        let event = try #require(events.first)
        #expect(event.line == 3)
        #expect(event.uid?.value == "abc@google.com")
        #expect(event.summary?.value == #"Rides, snacks; and a back\slash"#)
        #expect(event.description?.value == "Line one\nLine two\nEnd")
        #expect(event.description?.line == 6)
        #expect(event.url?.value == "https://cru.org/e")
        #expect(event.start?.value == .zoned(Local(year: 2026, month: 9, day: 29, hour: 19), timeZone: "America/Los_Angeles"))
        #expect(event.start?.line == 9)
        #expect(event.end?.value == .zoned(Local(year: 2026, month: 9, day: 29, hour: 20, minute: 30), timeZone: "America/Los_Angeles"))
        #expect(event.rule?.value == "FREQ=WEEKLY;BYDAY=TU;UNTIL=20261216T075959Z")
        #expect(event.exceptions.map(\.value) == [
            .zoned(Local(year: 2026, month: 11, day: 24, hour: 19), timeZone: "America/Los_Angeles"),
            .zoned(Local(year: 2026, month: 12, day: 1, hour: 19), timeZone: "America/Los_Angeles"),
            .utc(Local(year: 2026, month: 12, day: 9, hour: 3)),
        ])
        #expect(event.exceptions.map(\.line) == [12, 12, 13])
        #expect(event.status == "CONFIRMED" && !event.isCancelled)
        #expect(event.problems.isEmpty)
    }

    @Test func allDayFloatingUTCAndCancelledOccurrences() throws {
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:thanksgiving", "DTSTART;VALUE=DATE:20261126", "DTEND;VALUE=DATE:20261128", "END:VEVENT",
            "BEGIN:VEVENT", "UID:one-day", "DTSTART;VALUE=DATE:20261111", "DURATION:P1D", "END:VEVENT",
            "BEGIN:VEVENT", "UID:floating", "DTSTART:20261020T190000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:utc", "DTSTART:20261010T170000Z", "DTEND:20261010T220000Z", "END:VEVENT",
            "BEGIN:VEVENT", "UID:series", "RECURRENCE-ID;TZID=America/Los_Angeles:20261027T190000", "STATUS:CANCELLED",
            "DTSTART;TZID=America/Los_Angeles:20261027T190000", "END:VEVENT",
        ])
        #expect(events.map { $0.uid?.value } == ["thanksgiving", "one-day", "floating", "utc", "series"])
        #expect(events[0].start?.value == .date(Local(year: 2026, month: 11, day: 26)))
        #expect(events[0].end?.value == .date(Local(year: 2026, month: 11, day: 28)))
        #expect(events[1].end?.value == .date(Local(year: 2026, month: 11, day: 12)))
        #expect(events[2].start?.value == .floating(Local(year: 2026, month: 10, day: 20, hour: 19)))
        #expect(events[2].end == nil)
        #expect(events[3].start?.value == .utc(Local(year: 2026, month: 10, day: 10, hour: 17)))
        #expect(events[4].isCancelled)
        #expect(events[4].recurrenceID?.value == .zoned(Local(year: 2026, month: 10, day: 27, hour: 19), timeZone: "America/Los_Angeles"))
    }

    @Test func timeZonesAreFoundByEveryNameCalendarsGiveThem() throws {
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:outlook", #"DTSTART;TZID="Pacific Standard Time":20261008T190000"#, "END:VEVENT",
            "BEGIN:VEVENT", "UID:own-vtimezone", "DTSTART;TZID=Campus Time:20261008T190000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:mozilla", "DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20261008T190000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:unknown", "DTSTART;TZID=Mars Standard Time:20261008T190000", "END:VEVENT",
        ], header: [
            "X-WR-TIMEZONE:America/Phoenix",
            "BEGIN:VTIMEZONE", "TZID:Campus Time", "X-LIC-LOCATION:America/Chicago", "END:VTIMEZONE",
        ])
        let zones = events.map { event -> String? in
            if case .zoned(_, let zone)? = event.start?.value { return zone }
            return nil
        }
        #expect(zones == ["America/Los_Angeles", "America/Chicago", "America/New_York", nil])
        #expect(events[3].problems.map(\.property) == ["DTSTART"])
        #expect(events[3].problems.first?.line == 22)
        #expect(events[3].problems.first?.kind == .unknownTimeZone)
        #expect(events[3].problems.first?.message.contains("Mars Standard Time") == true)
        let file = try ICalendarFile(bytes: Self.calendar(["BEGIN:VCALENDAR", "X-WR-TIMEZONE:America/Phoenix",
                                                            "X-WR-CALNAME:Cru\\, Cal Poly", "END:VCALENDAR"]))
        #expect(file.timeZone == "America/Phoenix")
        #expect(file.name == "Cru, Cal Poly")
    }

    /// A VTIMEZONE as Microsoft writes one: its rules from 1601 on, under a TZID that names no zone.
    static func vtimezone(_ tzid: String, standard: String, daylight: String, offsets: (String, String),
                          standardRule: String = "FREQ=YEARLY;BYDAY=1SU;BYMONTH=11",
                          daylightRule: String = "FREQ=YEARLY;BYDAY=2SU;BYMONTH=3") -> [String] {
        ["BEGIN:VTIMEZONE", "TZID:" + tzid,
         "BEGIN:STANDARD", "DTSTART:" + standard, "TZOFFSETFROM:" + offsets.1, "TZOFFSETTO:" + offsets.0,
         "RRULE:" + standardRule, "END:STANDARD",
         "BEGIN:DAYLIGHT", "DTSTART:" + daylight, "TZOFFSETFROM:" + offsets.0, "TZOFFSETTO:" + offsets.1,
         "RRULE:" + daylightRule, "END:DAYLIGHT", "END:VTIMEZONE"]
    }

    @Test("a TZID that names no zone is read by its VTIMEZONE's rules, matched to the tz zone that keeps them")
    func zonesByTheirRules() throws {
        let cdo = "GMT +0100 (Standard) / GMT +0200 (Daylight)"
        let eastern = "(UTC-05:00) Eastern Time (US & Canada)"
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:cdo", "DTSTART;TZID=\"\(cdo)\":20261007T200000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:eastern", "DTSTART;TZID=\"\(eastern)\":20261111T120000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:zimbra", "DTSTART;TZID=\"(GMT-08.00) Pacific Time (US & Canada)\":20261111T120000", "END:VEVENT",
        ], header: Self.vtimezone(cdo, standard: "16010101T030000", daylight: "16010101T020000", offsets: ("+0100", "+0200"),
                                  standardRule: "FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTH=10;BYDAY=-1SU",
                                  daylightRule: "FREQ=YEARLY;WKST=MO;INTERVAL=1;BYMONTH=3;BYDAY=-1SU")
            + Self.vtimezone(eastern, standard: "16011104T020000", daylight: "16010311T020000", offsets: ("-0500", "-0400")))
        #expect(events.map { $0.start?.value } == [
            .zoned(Local(year: 2026, month: 10, day: 7, hour: 20), timeZone: "Europe/Brussels"),
            .zoned(Local(year: 2026, month: 11, day: 11, hour: 12), timeZone: "America/New_York"),
            // A display name without a VTIMEZONE: Windows' own name for the zone.
            .zoned(Local(year: 2026, month: 11, day: 11, hour: 12), timeZone: "America/Los_Angeles"),
        ])
        #expect(events.allSatisfy { $0.problems.isEmpty })
    }

    @Test("rules no tz zone keeps (the US rules before 2007) give instants, with a warning; a series in them is refused")
    func rulesNoZoneKeeps() throws {
        let old = "(GMT-08:00) Pacific Time (US & Canada)"
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:once", "DTSTART;TZID=\"\(old)\":20260320T190000", "DURATION:PT1H", "END:VEVENT",
            "BEGIN:VEVENT", "UID:weekly", "DTSTART;TZID=\"\(old)\":20260320T190000", "RRULE:FREQ=WEEKLY", "END:VEVENT",
        ], header: Self.vtimezone(old, standard: "16011028T020000", daylight: "16010401T020000", offsets: ("-0800", "-0700"),
                                  standardRule: "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", daylightRule: "FREQ=YEARLY;BYDAY=1SU;BYMONTH=4"))
        // 20 March 2026 is before the first Sunday of April: -08:00 by these rules (Los Angeles is on -07:00 by then).
        #expect(events[0].start?.value == .offset(Local(year: 2026, month: 3, day: 20, hour: 19), seconds: -28_800))
        #expect(events[0].start?.value.wallClock(in: "UTC") == Local(year: 2026, month: 3, day: 21, hour: 3))
        #expect(events[0].end?.value.wallClock(in: "UTC") == Local(year: 2026, month: 3, day: 21, hour: 4))
        #expect(events[0].problems.map(\.kind) == [.assumed])
        #expect(events[1].problems.map(\.kind) == [.unknownTimeZone])
        #expect(events[1].problems.first?.message.contains("a repeating event needs a zone") == true)
    }

    @Test("Outlook 2003's quoted-printable text is decoded; an encoding no text has leaves the property out")
    func quotedPrintable() throws {
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:qp", "LOCATION;ENCODING=QUOTED-PRINTABLE:Building 52=2C Room E-27",
            "DESCRIPTION;ENCODING=QUOTED-PRINTABLE:Caf=C3=A9; bring a friend.=0D=0A", "SUMMARY;ENCODING=BASE64:SGk=",
            "DTSTART:20261015T190000", "END:VEVENT",
        ])
        #expect(events[0].location?.value == "Building 52, Room E-27")
        #expect(events[0].description?.value == "Café; bring a friend.\n")
        #expect(events[0].summary == nil)
        #expect(events[0].problems.map(\.kind) == [.leftOut])
        #expect(events[0].problems.first?.line == 7)
    }

    @Test func unreadableValuesAreProblemsOfTheirEventOnly() throws {
        let events = try Self.events([
            "BEGIN:VEVENT", "UID:bad", "DTSTART:20261301T190000", "DURATION:1 hour", "RRULE:FREQ=SOMETIMES",
            "EXDATE;VALUE=DATE:20261124T190000", "END:VEVENT",
            "BEGIN:VEVENT", "UID:good", "DTSTART:20261001T190000", "END:VEVENT",
        ])
        #expect(events[0].problems.map(\.property) == ["DTSTART", "DURATION", "RRULE", "EXDATE"])
        #expect(events[0].problems.map(\.line) == [5, 6, 7, 8])
        #expect(events[0].start == nil && events[0].rule == nil && events[0].exceptions.isEmpty)
        #expect(events[1].problems.isEmpty)
    }

    @Test func instantsAreConvertedToWallClockTimeOnBothSidesOfDaylightSavingChanges() {
        // 02:00 UTC is 19:00 the evening before in PDT (October) and 18:00 in PST (November).
        #expect(CalendarTime.utc(Local(year: 2026, month: 10, day: 28, hour: 2)).wallClock(in: "America/Los_Angeles")
            == Local(year: 2026, month: 10, day: 27, hour: 19))
        #expect(CalendarTime.utc(Local(year: 2026, month: 11, day: 4, hour: 2)).wallClock(in: "America/Los_Angeles")
            == Local(year: 2026, month: 11, day: 3, hour: 18))
        #expect(CalendarTime.zoned(Local(year: 2026, month: 11, day: 3, hour: 21), timeZone: "America/New_York")
            .wallClock(in: "America/Los_Angeles") == Local(year: 2026, month: 11, day: 3, hour: 18))
        #expect(CalendarTime.floating(Local(year: 2026, month: 11, day: 3, hour: 19)).wallClock(in: "Asia/Tokyo")
            == Local(year: 2026, month: 11, day: 3, hour: 19))
        #expect(CalendarTime.utc(Local(year: 2026, month: 11, day: 3)).wallClock(in: "Mars/Olympus_Mons") == nil)
    }

    @Test func durationsAndRulesAreChecked() {
        #expect(CalendarValueParser.duration("PT1H30M")! == (0, 5400))
        #expect(CalendarValueParser.duration("P2W")! == (14, 0))
        #expect(CalendarValueParser.duration("P1DT2H")! == (1, 7200))
        #expect(CalendarValueParser.duration("-PT15M")! == (0, -900))
        for bad in ["", "P", "PT", "1H", "PT1D", "P1H", "PT1H30"] { #expect(CalendarValueParser.duration(bad) == nil, "\(bad)") }
        #expect(RecurrenceRule.problem(in: "FREQ=WEEKLY;WKST=SU;UNTIL=20261216T065959Z;BYDAY=TU") == nil)
        #expect(RecurrenceRule.problem(in: "FREQ=YEARLY;UNTIL=20300101;BYMONTH=11;BYDAY=1SU") == nil)
        #expect(RecurrenceRule.problem(in: "FREQ=WEEKLY;FREQ=DAILY") == "FREQ is given twice")
    }

    // MARK: reading back what the writer wrote

    @Test func theWritersCalendarReadsBackAsTheSameEvents() throws {
        let weekly = CalendarEvent(
            uid: "group-cp-small-tue+fall-2026@crubatch.cru.org", summary: "Tuesday; small, group\\",
            description: "Line one\nLine two", location: "Dexter Lawn, Cal Poly", url: "https://cru.org/g",
            start: Local(year: 2026, month: 9, day: 29, hour: 19), end: .minutes(90), timeZone: "America/Los_Angeles",
            recurrence: .weekly(WeeklyRecurrence(on: .tuesday, until: Local(year: 2026, month: 12, day: 8, hour: 23, minute: 59, second: 59))),
            exceptions: [Local(year: 2026, month: 11, day: 24, hour: 19)], dtstamp: CalendarTests.stamp)
        let holiday = CalendarEvent(
            uid: String(repeating: "long-uid-", count: 12), summary: String(repeating: "Thanksgiving é ", count: 8),
            start: Local(year: 2026, month: 11, day: 25), end: .at(Local(year: 2026, month: 11, day: 28)),
            timeZone: "America/Los_Angeles", isAllDay: true, recurrence: .rule("FREQ=YEARLY;COUNT=3"), dtstamp: CalendarTests.stamp)
        let bytes = try ICalendarWriter(name: "Round trip", years: 2026...2026).render([weekly, holiday])
        let file = try ICalendarFile(bytes: bytes)
        #expect(file.name == "Round trip")
        #expect(file.events.count == 2)
        let (first, second) = (file.events[0], file.events[1])
        #expect(first.uid?.value == weekly.uid)
        #expect(first.summary?.value == weekly.summary)
        #expect(first.description?.value == weekly.description)
        #expect(first.location?.value == weekly.location)
        #expect(first.start?.value == .zoned(weekly.start, timeZone: "America/Los_Angeles"))
        #expect(first.end?.value == .zoned(Local(year: 2026, month: 9, day: 29, hour: 20, minute: 30), timeZone: "America/Los_Angeles"))
        #expect(first.rule?.value == "FREQ=WEEKLY;BYDAY=TU;UNTIL=20261209T075959Z")
        #expect(first.exceptions.map(\.value) == [.zoned(Local(year: 2026, month: 11, day: 24, hour: 19), timeZone: "America/Los_Angeles")])
        #expect(second.uid?.value == holiday.uid)
        #expect(second.summary?.value == holiday.summary)
        #expect(second.start?.value == .date(holiday.start))
        #expect(second.end?.value == .date(Local(year: 2026, month: 11, day: 28)))
        #expect(second.rule?.value == "FREQ=YEARLY;COUNT=3")
        #expect(second.timeZone?.value == "America/Los_Angeles")
        #expect(first.timeZone == nil)
        #expect(file.events.allSatisfy { $0.problems.isEmpty })
    }
}
