import Foundation
import Testing

import CruBatchTestSupport
@testable import ICalendar

/// The RFC 5545 writer: folding, escaping, structure, VTIMEZONEs, and interop
/// with Python's `icalendar` + `recurring_ical_events`.
@Suite struct CalendarTests {
    typealias Local = CalendarEvent.LocalDateTime

    static let stamp = Date(timeIntervalSince1970: 1_785_585_600)  // 2026-08-01T12:00:00Z

    static func weeklyGroup(
        uid: String = "group-cp-mens-tue@crubatch.cru.org",
        zone: String = "America/Los_Angeles",
        until: Local? = nil
    ) -> CalendarEvent {
        CalendarEvent(
            uid: uid,
            summary: "Men's Community Group",
            description: "Bring a Bible; snacks provided.\nAll welcome",
            location: "Dexter Lawn, Cal Poly",
            url: "https://crubatch.cru.org/groups/cp-mens-tue",
            start: Local(year: 2026, month: 9, day: 8, hour: 19),
            end: .at(Local(year: 2026, month: 9, day: 8, hour: 20, minute: 30)),
            timeZone: zone,
            recurrence: .weekly(WeeklyRecurrence(on: .tuesday, until: until)),
            categories: ["Community Group", "Men"],
            dtstamp: stamp
        )
    }

    // MARK: helpers

    /// Physical lines, split on CRLF (the bytes must hold no other line break).
    static func physicalLines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
                lines.append(current)
                current = []
                i += 2
            } else {
                current.append(bytes[i])
                i += 1
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// Content lines after unfolding (RFC 5545 3.1: CRLF followed by one space or tab).
    static func unfolded(_ bytes: [UInt8]) -> [String] {
        var contentLines: [[UInt8]] = []
        for line in physicalLines(bytes) {
            if let first = line.first, first == 32 || first == 9, !contentLines.isEmpty {
                contentLines[contentLines.count - 1].append(contentsOf: line.dropFirst())
            } else {
                contentLines.append(line)
            }
        }
        return contentLines.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reverses TEXT escaping.
    static func unescape(_ value: String) -> String {
        var out = ""
        var escaped = false
        for c in value {
            if escaped {
                out.append(c == "n" || c == "N" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    static func value(of property: String, in lines: [String]) -> String? {
        lines.first(where: { $0.hasPrefix(property + ":") || $0.hasPrefix(property + ";") })
            .map { line in String(line[line.index(after: line.firstIndex(of: ":")!)...]) }
    }

    // MARK: folding and escaping

    @Test func longMultibyteSummaryFoldsAt75OctetsAndUnfoldsToTheOriginal() throws {
        let unit = "Café 日本 groupe é — "
        var summary = ""
        while summary.count < 200 { summary += unit }
        summary = String(summary.prefix(200))
        #expect(summary.count == 200)
        #expect(summary.utf8.count > 250)

        var event = Self.weeklyGroup()
        event.summary = summary
        let bytes = try ICalendarWriter(name: "Cal Poly", years: 2026...2027).render([event])

        let physical = Self.physicalLines(bytes)
        for line in physical {
            #expect(line.count <= 75, "physical line of \(line.count) octets")
            // Each physical line is valid UTF-8 on its own: no sequence was split.
            #expect(String(bytes: line, encoding: .utf8) != nil, "a fold split a UTF-8 sequence")
        }
        let summaryLines = physical.drop(while: { !$0.starts(with: Array("SUMMARY:".utf8)) })
        #expect(summaryLines.dropFirst().first?.first == 32, "the long SUMMARY continues on a line starting with a space")
        // Folding is tight: a folded line is cut only when the next scalar would not fit.
        #expect(summaryLines.first.map { $0.count >= 72 } == true)

        let lines = Self.unfolded(bytes)
        let written = try #require(Self.value(of: "SUMMARY", in: lines))
        #expect(written == summary)  // no character here needs escaping
        #expect(Self.unescape(written) == summary)
    }

    @Test func textValuesEscapeBackslashSemicolonCommaAndNewlines() throws {
        var event = Self.weeklyGroup()
        event.summary = #"Rides; snacks, and a back\slash"#
        event.description = "Line one\nLine two\r\nLine three\rEnd"
        event.location = "Room 1, Bldg 2; side door"
        event.categories = ["A,B", "C;D"]
        let lines = Self.unfolded(try ICalendarWriter(name: "Cal, Poly; SLO", years: 2026...2026).render([event]))

        #expect(Self.value(of: "SUMMARY", in: lines) == #"Rides\; snacks\, and a back\\slash"#)
        #expect(Self.value(of: "DESCRIPTION", in: lines) == #"Line one\nLine two\nLine three\nEnd"#)
        #expect(Self.value(of: "LOCATION", in: lines) == #"Room 1\, Bldg 2\; side door"#)
        #expect(Self.value(of: "CATEGORIES", in: lines) == #"A\,B,C\;D"#)
        #expect(Self.value(of: "X-WR-CALNAME", in: lines) == #"Cal\, Poly\; SLO"#)
        #expect(Self.unescape(Self.value(of: "SUMMARY", in: lines)!) == event.summary)
        #expect(Self.unescape(Self.value(of: "DESCRIPTION", in: lines)!) == "Line one\nLine two\nLine three\nEnd")
    }

    @Test func foldingHelperCutsAtExactly75Octets() {
        var lines = ICalLines()
        lines.add("X:" + String(repeating: "a", count: 73))  // exactly 75 octets: no fold
        lines.add("X:" + String(repeating: "a", count: 74))  // 76: one fold
        lines.add("X:" + String(repeating: "a", count: 72) + "é")  // 74 + 2 octets: é moves down whole
        let physical = Self.physicalLines(lines.bytes)
        #expect(physical.map(\.count) == [75, 75, 2, 74, 3])
        #expect(physical[4] == [32, 0xC3, 0xA9])
    }

    // MARK: structure

    @Test func structureIsBalancedCRLFOnlyAndHasTheTimeZonesItUses() throws {
        let oneOff = CalendarEvent(
            uid: "event-fall-retreat-2026@crubatch.cru.org",
            summary: "Fall Retreat",
            start: Local(year: 2026, month: 10, day: 16, hour: 17, minute: 30),
            end: .minutes(90),
            timeZone: "America/Phoenix",
            dtstamp: Self.stamp,
            lastModified: Self.stamp
        )
        let writer = ICalendarWriter(name: "Cru", years: 2026...2027)
        let bytes = try writer.render([Self.weeklyGroup(), oneOff])

        // CRLF only: every LF follows a CR and every CR precedes an LF.
        for (i, byte) in bytes.enumerated() {
            if byte == 10 { #expect(i > 0 && bytes[i - 1] == 13, "bare LF at \(i)") }
            if byte == 13 { #expect(i + 1 < bytes.count && bytes[i + 1] == 10, "bare CR at \(i)") }
        }
        #expect(bytes.suffix(2) == [13, 10])

        let lines = Self.unfolded(bytes)
        var stack: [String] = []
        for line in lines {
            if line.hasPrefix("BEGIN:") { stack.append(String(line.dropFirst(6))) }
            if line.hasPrefix("END:") {
                #expect(stack.popLast() == String(line.dropFirst(4)), "unbalanced \(line)")
            }
        }
        #expect(stack.isEmpty)
        #expect(lines.first == "BEGIN:VCALENDAR")
        #expect(lines.last == "END:VCALENDAR")
        for expected in ["VERSION:2.0", "PRODID:-//Cru//crubatch//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH", "X-WR-CALNAME:Cru"] {
            #expect(lines.contains(expected))
        }

        #expect(lines.contains("DTSTART;TZID=America/Los_Angeles:20260908T190000"))
        #expect(lines.contains("DTEND;TZID=America/Los_Angeles:20260908T203000"))
        #expect(lines.contains("RRULE:FREQ=WEEKLY;BYDAY=TU"))
        #expect(lines.contains("DTSTAMP:20260801T120000Z"))
        #expect(lines.contains("DTSTART;TZID=America/Phoenix:20261016T173000"))
        #expect(lines.contains("DURATION:PT1H30M"))
        #expect(lines.contains("LAST-MODIFIED:20260801T120000Z"))
        #expect(lines.contains("URL:https://crubatch.cru.org/groups/cp-mens-tue"))

        // Every TZID used has exactly one VTIMEZONE.
        let used = Set(lines.compactMap { line -> String? in
            guard let range = line.range(of: ";TZID=") else { return nil }
            return String(line[range.upperBound...].prefix(while: { $0 != ":" && $0 != ";" }))
        })
        #expect(used == ["America/Los_Angeles", "America/Phoenix"])
        for tzid in used {
            #expect(lines.filter { $0 == "TZID:" + tzid }.count == 1, "one VTIMEZONE for \(tzid)")
        }
        // VTIMEZONEs come before the events that use them.
        #expect(lines.firstIndex(of: "BEGIN:VTIMEZONE")! < lines.firstIndex(of: "BEGIN:VEVENT")!)

        // Deterministic: the same input renders to the same bytes.
        #expect(try writer.render([Self.weeklyGroup(), oneOff]) == bytes)
        #expect(try writer.renderString([Self.weeklyGroup(), oneOff]) == String(decoding: bytes, as: UTF8.self))
    }

    @Test func losAngelesTimeZoneHasTheRealTransitions() throws {
        let lines = Self.unfolded(try ICalendarWriter(name: "Cru", years: 2026...2027).render([Self.weeklyGroup()]))
        let zone = Array(lines[lines.firstIndex(of: "BEGIN:VTIMEZONE")!...lines.firstIndex(of: "END:VTIMEZONE")!])
        let text = zone.joined(separator: "\n")
        #expect(text.contains("""
            BEGIN:STANDARD
            TZOFFSETFROM:-0700
            TZOFFSETTO:-0800
            """))
        #expect(text.contains("""
            BEGIN:DAYLIGHT
            TZOFFSETFROM:-0800
            TZOFFSETTO:-0700
            """))
        // The change in force at the start of 2026 (2025-11-02), then 2026 and 2027.
        #expect(zone.contains("DTSTART:20251102T020000"))
        #expect(zone.contains("RDATE:20261101T020000,20271107T020000"))
        #expect(zone.contains("DTSTART:20260308T020000"))
        #expect(zone.contains("RDATE:20270314T020000"))
    }

    @Test func zonesWithoutDaylightSavingGetOneStandard() throws {
        for id in ["America/Phoenix", "UTC", "Asia/Kolkata"] {
            let event = CalendarEvent(
                uid: "x@crubatch.cru.org", summary: "x",
                start: Local(year: 2026, month: 9, day: 8, hour: 19), end: .minutes(60),
                timeZone: id, dtstamp: Self.stamp)
            let lines = Self.unfolded(try ICalendarWriter(name: "Cru", years: 2026...2027).render([event]))
            #expect(lines.filter { $0 == "BEGIN:STANDARD" }.count == 1, "\(id)")
            #expect(!lines.contains("BEGIN:DAYLIGHT"), "\(id)")
            #expect(!lines.contains { $0.hasPrefix("RDATE") }, "\(id)")
        }
        let phoenix = Self.unfolded(try ICalendarWriter(name: "Cru", years: 2026...2027).render([Self.weeklyGroup(zone: "America/Phoenix")]))
        #expect(phoenix.contains("TZOFFSETFROM:-0700"))
        #expect(phoenix.contains("TZOFFSETTO:-0700"))
        #expect(phoenix.contains("TZNAME:MST"))
    }

    @Test func untilIsWrittenInUTC() throws {
        // Last meeting Tuesday 2026-12-08, until the end of that day in Los Angeles (PST, -08:00).
        let event = Self.weeklyGroup(until: Local(year: 2026, month: 12, day: 8, hour: 23, minute: 59, second: 59))
        let lines = Self.unfolded(try ICalendarWriter(name: "Cru", years: 2026...2026).render([event]))
        #expect(lines.contains("RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261209T075959Z"))
    }

    @Test func durationsAndOffsetsAreFormatted() {
        #expect(ICalFormat.duration(0) == "PT0S")
        #expect(ICalFormat.duration(45 * 60) == "PT45M")
        #expect(ICalFormat.duration(2 * 3600) == "PT2H")
        #expect(ICalFormat.duration(3600 + 5) == "PT1H0M5S")
        #expect(ICalFormat.duration(26 * 3600 + 90) == "PT26H1M30S")
        #expect(ICalFormat.offset(-28800) == "-0800")
        #expect(ICalFormat.offset(19800) == "+0530")
        #expect(ICalFormat.offset(0) == "+0000")
        #expect(ICalFormat.offset(-(7 * 3600 + 52 * 60 + 58)) == "-075258")
        #expect(ICalFormat.utc(Date(timeIntervalSince1970: 0.75)) == "19700101T000000Z")
        #expect(ICalFormat.utc(Date(timeIntervalSince1970: 951_782_400)) == "20000229T000000Z")
    }

    @Test func nextOrSameFindsTheFirstMeeting() {
        let termStart = Local(year: 2026, month: 9, day: 3, hour: 19)  // a Thursday
        #expect(termStart.weekday == .thursday)
        #expect(termStart.nextOrSame(.tuesday) == Local(year: 2026, month: 9, day: 8, hour: 19))
        #expect(termStart.nextOrSame(.thursday) == termStart)
        #expect(Local(year: 2026, month: 12, day: 30).nextOrSame(.monday) == Local(year: 2027, month: 1, day: 4))
        #expect(Local(year: 2028, month: 2, day: 29).isValid)
        #expect(!Local(year: 2027, month: 2, day: 29).isValid)
    }

    // MARK: all-day events, exceptions, rules kept as written

    @Test func allDayEventsAreDatesWithoutAZone() throws {
        let thanksgiving = CalendarEvent(
            uid: "term-calpoly+fall-2026+break-1@crubatch.cru.org", summary: "Thanksgiving",
            start: Local(year: 2026, month: 11, day: 25), end: .at(Local(year: 2026, month: 11, day: 28)),
            timeZone: "America/Los_Angeles", isAllDay: true, dtstamp: Self.stamp)
        var oneDay = thanksgiving
        oneDay.uid = "veterans-day"
        oneDay.start = Local(year: 2026, month: 11, day: 11, hour: 9)  // the time of day is ignored
        oneDay.end = .duration(seconds: 86_400)
        let lines = Self.unfolded(try ICalendarWriter(name: "Terms", years: 2026...2026).render([thanksgiving, oneDay]))
        #expect(lines.contains("DTSTART;VALUE=DATE:20261125"))
        #expect(lines.contains("DTEND;VALUE=DATE:20261128"))
        #expect(lines.contains("DTSTART;VALUE=DATE:20261111"))
        #expect(lines.contains("DURATION:P1D"))
        #expect(!lines.contains("BEGIN:VTIMEZONE"), "all-day events need no time zone")

        var backwards = thanksgiving
        backwards.end = .at(Local(year: 2026, month: 11, day: 25, hour: 23))
        #expect(throws: CalendarError.self) { try ICalendarWriter(name: "Terms", years: 2026...2026).render([backwards]) }

        let occurrences = ICalendarOracle.occurrences(in: try ICalendarOracle.expand(
            try ICalendarWriter(name: "Terms", years: 2026...2026).render([thanksgiving, oneDay])))
        #expect(Set(occurrences.map { [$0.uid, $0.date, $0.time] }) == [
            ["term-calpoly+fall-2026+break-1@crubatch.cru.org", "2026-11-25", "all-day"],
            ["veterans-day", "2026-11-11", "all-day"],
        ])
    }

    @Test func exceptionsAreLeftOutOfAWeeklySeriesAcrossDaylightSavingChanges() throws {
        var event = Self.weeklyGroup(until: Local(year: 2026, month: 12, day: 8, hour: 23, minute: 59, second: 59))
        // Thanksgiving week, in standard time; and the last Tuesday of daylight time.
        event.exceptions = [Local(year: 2026, month: 11, day: 24, hour: 19), Local(year: 2026, month: 10, day: 27, hour: 19)]
        let bytes = try ICalendarWriter(name: "Cru", years: 2026...2026).render([event])
        #expect(Self.unfolded(bytes).contains("EXDATE;TZID=America/Los_Angeles:20261124T190000,20261027T190000"))

        let occurrences = ICalendarOracle.occurrences(in: try ICalendarOracle.expand(bytes))
        let dates = occurrences.map(\.date)
        #expect(dates.count == 12)  // 2026-09-08 ... 2026-12-08 is 14 Tuesdays, two left out
        #expect(!dates.contains("2026-11-24") && !dates.contains("2026-10-27"))
        #expect(dates.contains("2026-10-20") && dates.contains("2026-11-03") && dates.last == "2026-12-08")
        #expect(occurrences.allSatisfy { $0.time == "19:00" })

        var stray = Self.weeklyGroup()
        stray.recurrence = nil
        stray.exceptions = [Local(year: 2026, month: 9, day: 15, hour: 19)]
        #expect(throws: CalendarError.self) { try ICalendarWriter(name: "Cru", years: 2026...2026).render([stray]) }
    }

    @Test func aRuleReadFromAnotherCalendarIsWrittenAsItWas() throws {
        var event = Self.weeklyGroup()
        event.recurrence = .rule("FREQ=MONTHLY;BYDAY=1FR;UNTIL=20290605T020000Z")
        event.start = Local(year: 2026, month: 9, day: 4, hour: 19)
        event.end = .minutes(120)
        let writer = ICalendarWriter(name: "Cru", years: 2026...2026)
        let lines = Self.unfolded(try writer.render([event]))
        #expect(lines.contains("RRULE:FREQ=MONTHLY;BYDAY=1FR;UNTIL=20290605T020000Z"))
        // The VTIMEZONE covers the years up to the rule's UNTIL.
        #expect(lines.contains { $0.hasPrefix("RDATE:") && $0.contains("20291104T020000") })

        for broken in ["BYDAY=1FR", "FREQ=FORTNIGHTLY", "FREQ=DAILY;COUNT=3;UNTIL=20261201", "FREQ=DAILY;UNTIL=tomorrow",
                       "FREQ=DAILY\r\nX-EVIL:1", "FREQ=DAILY;;BYDAY=MO"] {
            event.recurrence = .rule(broken)
            #expect(throws: CalendarError.self, "\(broken)") { try writer.render([event]) }
        }
    }

    // MARK: errors

    @Test func unknownTimeZoneIsAnErrorNamingIt() {
        var event = Self.weeklyGroup()
        event.timeZone = "Mars/Olympus_Mons"
        #expect(throws: CalendarError.unknownTimeZone("Mars/Olympus_Mons")) {
            try ICalendarWriter(name: "Cru", years: 2026...2026).render([event])
        }
        #expect(CalendarError.unknownTimeZone("Mars/Olympus_Mons").description.contains("Mars/Olympus_Mons"))
    }

    @Test func invalidEventsAreRejected() {
        let writer = ICalendarWriter(name: "Cru", years: 2026...2026)
        var wrongDay = Self.weeklyGroup()
        wrongDay.recurrence = .weekly(WeeklyRecurrence(on: .wednesday))
        #expect(throws: CalendarError.self) { try writer.render([wrongDay]) }

        var backwards = Self.weeklyGroup()
        backwards.end = .at(Local(year: 2026, month: 9, day: 8, hour: 18))
        #expect(throws: CalendarError.self) { try writer.render([backwards]) }

        var badDate = Self.weeklyGroup()
        badDate.recurrence = nil
        badDate.start = Local(year: 2026, month: 2, day: 30, hour: 19)
        badDate.end = .minutes(60)
        #expect(throws: CalendarError.self) { try writer.render([badDate]) }

        var badURL = Self.weeklyGroup()
        badURL.url = "https://example.org/a\r\nX-EVIL:1"
        #expect(throws: CalendarError.self) { try writer.render([badURL]) }

        #expect(throws: CalendarError.duplicateUID("group-cp-mens-tue@crubatch.cru.org")) {
            try writer.render([Self.weeklyGroup(), Self.weeklyGroup()])
        }
    }

    // MARK: interop with Python's icalendar and recurring_ical_events

    @Test func pythonIcalendarExpandsWeeklyEventsAcrossDaylightSavingChanges() throws {
        let events = [
            Self.weeklyGroup(),
            Self.weeklyGroup(uid: "group-asu-womens-tue@crubatch.cru.org", zone: "America/Phoenix",
                             until: Local(year: 2026, month: 12, day: 15, hour: 23, minute: 59, second: 59)),
            CalendarEvent(
                uid: "event-fall-back-brunch@crubatch.cru.org", summary: "Brunch on the day clocks go back",
                start: Local(year: 2026, month: 11, day: 1, hour: 10), end: .minutes(120),
                timeZone: "America/Los_Angeles", dtstamp: Self.stamp),
            CalendarEvent(
                uid: "event-utc-call@crubatch.cru.org", summary: "Global call",
                start: Local(year: 2027, month: 1, day: 12, hour: 19), end: .minutes(60),
                timeZone: "UTC", dtstamp: Self.stamp),
            // Southern hemisphere: daylight saving is in force when the range begins.
            CalendarEvent(
                uid: "event-sydney-launch@crubatch.cru.org", summary: "Sydney launch",
                start: Local(year: 2026, month: 10, day: 6, hour: 18), end: .minutes(60),
                timeZone: "Australia/Sydney", dtstamp: Self.stamp),
        ]
        let bytes = try ICalendarWriter(name: "Cru interop", years: 2026...2027).render(events)
        let output = try ICalendarOracle.expand(bytes)
        let rows = output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        #expect(!rows.contains { $0.first == "TZMISMATCH" }, "VTIMEZONE disagrees with the tz database:\n\(output)")
        let checked = rows.filter { $0.first == "TZCHECKED" }
        #expect(Set(checked.map { $0[1] }) == ["America/Los_Angeles", "America/Phoenix", "UTC", "Australia/Sydney"])
        #expect(checked.allSatisfy { Int($0[2]) == 17_520 })

        let occurrences = ICalendarOracle.occurrences(in: output)
        for occurrence in occurrences {
            #expect(occurrence.offset == occurrence.vtimezoneOffset, "VTIMEZONE offset differs for \(occurrence)")
        }

        let la = occurrences.filter { $0.uid == "group-cp-mens-tue@crubatch.cru.org" }
        #expect(la.count == 30)  // 2026-09-08 ... 2027-03-30
        #expect(la.first?.date == "2026-09-08")
        #expect(la.last?.date == "2027-03-30")
        for occurrence in la {
            #expect(occurrence.weekday == "Tue" && occurrence.time == "19:00", "\(occurrence)")
            // PDT until the 2026-11-01 change, PST until 2027-03-14, then PDT again.
            let expected = occurrence.date < "2026-11-01" || occurrence.date > "2027-03-14" ? "-07:00" : "-08:00"
            #expect(occurrence.offset == expected, "\(occurrence)")
        }
        #expect(Set(la.map(\.offset)) == ["-07:00", "-08:00"])

        let phoenix = occurrences.filter { $0.uid == "group-asu-womens-tue@crubatch.cru.org" }
        #expect(phoenix.count == 15)  // 2026-09-08 ... 2026-12-15 (UNTIL)
        #expect(phoenix.last?.date == "2026-12-15")
        for occurrence in phoenix {
            #expect(occurrence.weekday == "Tue" && occurrence.time == "19:00" && occurrence.offset == "-07:00", "\(occurrence)")
        }

        let brunch = occurrences.filter { $0.uid == "event-fall-back-brunch@crubatch.cru.org" }
        #expect(brunch.count == 1)
        #expect(brunch.first.map { [$0.date, $0.time, $0.offset] } == ["2026-11-01", "10:00", "-08:00"])

        let call = occurrences.filter { $0.uid == "event-utc-call@crubatch.cru.org" }
        #expect(call.first.map { [$0.date, $0.time, $0.offset] } == ["2027-01-12", "19:00", "+00:00"])
        let sydney = occurrences.filter { $0.uid == "event-sydney-launch@crubatch.cru.org" }
        #expect(sydney.first.map { [$0.date, $0.time, $0.offset] } == ["2026-10-06", "18:00", "+11:00"])
        #expect(occurrences.count == 30 + 15 + 1 + 1 + 1)
    }
}
