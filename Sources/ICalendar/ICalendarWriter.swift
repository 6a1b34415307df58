import Foundation

/// Renders events as one RFC 5545 VCALENDAR (`METHOD:PUBLISH`), suitable for a
/// subscribed `.ics` feed.
///
/// Output is deterministic: events appear in the order given, time zones in the
/// order of first use, and nothing reads the clock or draws random numbers.
/// Lines end in CRLF and are folded at 75 octets without splitting a UTF-8
/// sequence; TEXT values escape `\`, `;`, `,` and newlines.
///
/// Every time zone a timed event uses gets one VTIMEZONE built from the system
/// time zone database (all-day events are written without a zone, which only
/// `X-CRUBATCH-TIMEZONE` names): the
/// transitions found in `years` (plus the one in force when the range begins),
/// grouped into STANDARD and DAYLIGHT observances with a DTSTART and an RDATE
/// list. A zone without transitions, such as `America/Phoenix` or
/// `UTC`, gets a single STANDARD. `years` is widened to include every event's
/// start, end and UNTIL year; an endless recurrence is described exactly up to
/// the end of `years`, so pass the range the feed is meant to cover.
public struct ICalendarWriter: Sendable {
    /// The calendar's display name (X-WR-CALNAME).
    public var name: String
    /// The years whose time zone transitions the VTIMEZONEs describe.
    public var years: ClosedRange<Int>

    public static let productID = "-//Cru//crubatch//EN"

    public init(name: String, years: ClosedRange<Int>) {
        self.name = name
        self.years = years
    }

    /// The calendar as UTF-8 bytes.
    /// - Throws: `CalendarError` for an unknown time zone, an invalid event or
    ///   a duplicate UID.
    public func render(_ events: [CalendarEvent]) throws -> [UInt8] {
        var seenUIDs = Set<String>()
        var zoneIDs: [String] = []
        var zones: [String: TimeZone] = [:]
        var firstYear = years.lowerBound
        var lastYear = years.upperBound
        for event in events {
            guard seenUIDs.insert(event.uid).inserted else { throw CalendarError.duplicateUID(event.uid) }
            if let reason = Self.problem(with: event) { throw CalendarError.invalidEvent(uid: event.uid, reason: reason) }
            // An all-day event is written without a zone, so it needs no VTIMEZONE.
            if event.isAllDay { continue }
            if zones[event.timeZone] == nil {
                guard let zone = ICalFormat.timeZone(event.timeZone) else {
                    throw CalendarError.unknownTimeZone(event.timeZone)
                }
                zones[event.timeZone] = zone
                zoneIDs.append(event.timeZone)
            }
            var eventYears = [event.start.year]
            if case .at(let end) = event.end { eventYears.append(end.year) }
            if let untilYear = event.recurrence.flatMap(Self.untilYear) { eventYears.append(untilYear) }
            firstYear = min(firstYear, eventYears.min()!)
            lastYear = max(lastYear, eventYears.max()!)
        }

        var out = ICalLines()
        out.add("BEGIN:VCALENDAR")
        out.add("VERSION:2.0")
        out.add("PRODID:" + Self.productID)
        out.add("CALSCALE:GREGORIAN")
        out.add("METHOD:PUBLISH")
        out.add("X-WR-CALNAME:" + ICalFormat.text(name))
        for id in zoneIDs {
            ICalTimeZone(id: id, zone: zones[id]!, years: firstYear...lastYear).write(to: &out)
        }
        for event in events {
            Self.write(event, zone: event.isAllDay ? nil : zones[event.timeZone], to: &out)
        }
        out.add("END:VCALENDAR")
        return out.bytes
    }

    /// The calendar as a String (the same text as `render`).
    public func renderString(_ events: [CalendarEvent]) throws -> String {
        String(decoding: try render(events), as: UTF8.self)
    }

    /// The year of a recurrence's UNTIL, so the VTIMEZONE covers it; nil when it repeats without end.
    private static func untilYear(_ recurrence: CalendarEvent.Recurrence) -> Int? {
        switch recurrence {
        case .weekly(let weekly): weekly.until?.year
        case .rule(let rule): RecurrenceRule.untilYear(rule)
        }
    }

    /// Why `render` would refuse this event on its own (its end not after its start, a bad RRULE ...),
    /// or nil when it can be written: a caller leaves such an event out instead of losing the calendar.
    public static func problem(with event: CalendarEvent) -> String? {
        if event.uid.isEmpty { return "the UID is empty" }
        if event.uid.unicodeScalars.contains(where: ICalFormat.isControl) {
            return "the UID holds a control character"
        }
        if !event.start.isValid { return "start \(event.start) is not a valid date and time" }
        switch event.end {
        case .at(let end):
            if !end.isValid { return "end \(end) is not a valid date and time" }
            if event.isAllDay ? end.startOfDay <= event.start.startOfDay : end <= event.start {
                return "end \(end) is not after start \(event.start)"
            }
        case .duration(let seconds):
            if seconds < 0 { return "duration \(seconds)s is negative" }
            if event.isAllDay && (seconds == 0 || seconds % 86_400 != 0) {
                return "an all-day event lasts a whole number of days, not \(seconds)s"
            }
        }
        if let url = event.url, url.isEmpty || url.unicodeScalars.contains(where: { ICalFormat.isControl($0) || $0 == " " }) {
            return "the URL is empty or holds a space or control character"
        }
        switch event.recurrence {
        case .weekly(let recurrence)?:
            if event.start.weekday != recurrence.weekday {
                return "start \(event.start) is a \(event.start.weekday), not a \(recurrence.weekday) as BYDAY=\(recurrence.weekday.rawValue) says"
            }
            if let until = recurrence.until {
                if !until.isValid { return "UNTIL \(until) is not a valid date and time" }
                if until < event.start { return "UNTIL \(until) is before start \(event.start)" }
            }
        case .rule(let rule)?:
            if let problem = RecurrenceRule.problem(in: rule) { return "RRULE \(String(reflecting: rule)): \(problem)" }
        case nil:
            if !event.exceptions.isEmpty { return "exceptions (EXDATE) need a recurrence" }
        }
        if let exception = event.exceptions.first(where: { !$0.isValid }) {
            return "exception \(exception) is not a valid date and time"
        }
        return nil
    }

    /// One VEVENT; `zone` is the event's time zone (nil for an all-day event, written without one).
    private static func write(_ event: CalendarEvent, zone: TimeZone?, to out: inout ICalLines) {
        let tzid = ";TZID=" + ICalFormat.parameterValue(event.timeZone)
        /// A property holding wall-clock times of the event: dates for an all-day event.
        func times(_ name: String, _ values: [CalendarEvent.LocalDateTime]) -> String {
            event.isAllDay ? name + ";VALUE=DATE:" + values.map(\.dateDescription).joined(separator: ",")
                : name + tzid + ":" + values.map(\.description).joined(separator: ",")
        }
        out.add("BEGIN:VEVENT")
        out.add("UID:" + ICalFormat.text(event.uid))
        out.add("DTSTAMP:" + ICalFormat.utc(event.dtstamp))
        if let lastModified = event.lastModified {
            out.add("LAST-MODIFIED:" + ICalFormat.utc(lastModified))
        }
        out.add(times("DTSTART", [event.start]))
        switch event.end {
        case .at(let end): out.add(times("DTEND", [end]))
        case .duration(let seconds):
            out.add("DURATION:" + (event.isAllDay ? "P\(seconds / 86_400)D" : ICalFormat.duration(seconds)))
        }
        switch event.recurrence {
        case .weekly(let recurrence)?:
            var rule = "RRULE:FREQ=WEEKLY;BYDAY=" + recurrence.weekday.rawValue
            if let until = recurrence.until {
                rule += ";UNTIL=" + (zone.map { ICalFormat.utc(ICalFormat.instant(of: until, in: $0)) } ?? until.dateDescription)
            }
            out.add(rule)
        case .rule(let rule)?:
            out.add("RRULE:" + rule)
        case nil:
            break
        }
        if !event.exceptions.isEmpty { out.add(times("EXDATE", event.exceptions)) }
        // Dates carry no zone: the zone of an all-day event is written beside them, for a reader that
        // keeps one (crubatch's own reads it back; other programs ignore it).
        if event.isAllDay && ICalFormat.timeZone(event.timeZone) != nil {
            out.add(VEventReader.allDayZoneProperty + ":" + event.timeZone)
        }
        out.add("SUMMARY:" + ICalFormat.text(event.summary))
        if let description = event.description { out.add("DESCRIPTION:" + ICalFormat.text(description)) }
        if let location = event.location { out.add("LOCATION:" + ICalFormat.text(location)) }
        if let url = event.url { out.add("URL:" + url) }
        if !event.categories.isEmpty {
            out.add("CATEGORIES:" + event.categories.map(ICalFormat.text).joined(separator: ","))
        }
        out.add("END:VEVENT")
    }
}

/// Content lines, CRLF-terminated and folded at 75 octets.
struct ICalLines {
    static let limit = 75
    private(set) var bytes: [UInt8] = []

    /// Appends one content line, folding it so that no physical line exceeds 75
    /// octets (before CRLF). Folds fall between Unicode scalars, never inside a
    /// UTF-8 sequence; a continuation line starts with one space.
    mutating func add(_ line: String) {
        var used = 0
        for scalar in line.unicodeScalars {
            let width = UTF8.width(scalar)
            if used + width > Self.limit {
                bytes.append(contentsOf: [13, 10, 32])
                used = 1
            }
            UTF8.encode(scalar) { bytes.append($0) }
            used += width
        }
        bytes.append(contentsOf: [13, 10])
    }
}

/// Value formatting shared by the writer and the VTIMEZONE builder.
enum ICalFormat {
    /// The zone for an id, or nil when the system time zone database does not know it.
    static func timeZone(_ id: String) -> TimeZone? {
        guard !id.isEmpty, !id.unicodeScalars.contains(where: { isControl($0) || $0 == "\"" }) else { return nil }
        return TimeZone(identifier: id)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// A TEXT value (RFC 5545 3.3.11): `\`, `;` and `,` are escaped, each line
    /// break (CRLF, CR or LF) becomes `\n`, other control characters except TAB
    /// are dropped.
    static func text(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        var afterCR = false
        for scalar in value.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\\", ";", ",":
                out.append("\\")
                out.append(scalar)
            case "\r":
                out.append(contentsOf: "\\n".unicodeScalars)
            case "\n":
                if !afterCR { out.append(contentsOf: "\\n".unicodeScalars) }
            case "\t":
                out.append(scalar)
            default:
                if !isControl(scalar) { out.append(scalar) }
            }
        }
        return String(out)
    }

    /// A parameter value, quoted when it holds `;`, `:` or `,`.
    static func parameterValue(_ value: String) -> String {
        value.contains(where: { $0 == ";" || $0 == ":" || $0 == "," }) ? "\"" + value + "\"" : value
    }

    /// `yyyyMMddTHHmmssZ` (fractions of a second are dropped).
    static func utc(_ date: Date) -> String {
        CalendarCivil.local(seconds: Int64(date.timeIntervalSince1970.rounded(.down))).description + "Z"
    }

    /// An exact duration (RFC 5545 3.3.6) in hours, minutes and seconds.
    static func duration(_ seconds: Int) -> String {
        if seconds == 0 { return "PT0S" }
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        var out = "PT"
        if h > 0 { out += "\(h)H" }
        if m > 0 || (h > 0 && s > 0) { out += "\(m)M" }
        if s > 0 { out += "\(s)S" }
        return out
    }

    /// `+HHMM` or `+HHMMSS`.
    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let a = abs(seconds)
        var out = sign + CalendarCivil.pad(a / 3600, 2) + CalendarCivil.pad(a % 3600 / 60, 2)
        if a % 60 != 0 { out += CalendarCivil.pad(a % 60, 2) }
        return out
    }

    /// The instant a wall-clock time denotes in `zone` (for a time skipped by a
    /// forward change, the offset in force just before it is used).
    static func instant(of local: CalendarEvent.LocalDateTime, in zone: TimeZone) -> Date {
        let wall = CalendarCivil.seconds(local)
        var guess = wall - Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall))))
        for _ in 0..<2 {
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(guess))))
            guess = wall - offset
        }
        return Date(timeIntervalSince1970: TimeInterval(guess))
    }
}

/// One VTIMEZONE, built from the transitions Foundation reports for a zone.
struct ICalTimeZone {
    struct Observance {
        var isDaylight: Bool
        var offsetFrom: Int
        var offsetTo: Int
        var name: String
        /// Onsets as wall-clock times in the offset before the change.
        var onsets: [CalendarEvent.LocalDateTime]
    }

    let id: String
    let observances: [Observance]

    init(id: String, zone: TimeZone, years: ClosedRange<Int>) {
        self.id = id
        let day: Int64 = 86_400
        let rangeStart = CalendarCivil.days(year: years.lowerBound, month: 1, day: 1) * day - day
        let rangeEnd = CalendarCivil.days(year: years.upperBound + 1, month: 1, day: 1) * day + day
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

        // Every transition from about a year before the range to its end; the
        // last one before the range says what is in force when it begins.
        var transitions: [Int64] = []
        var cursor = date(rangeStart - 400 * day)
        while transitions.count < 10_000, let next = zone.nextDaylightSavingTimeTransition(after: cursor),
              next > cursor, next < date(rangeEnd) {
            transitions.append(Int64(next.timeIntervalSince1970.rounded(.down)))
            cursor = next
        }
        let before = transitions.last(where: { $0 < rangeStart })
        let inRange = transitions.filter { $0 >= rangeStart }

        var groups: [Observance] = []
        func add(isDaylight: Bool, from: Int, to: Int, name: String, onset: CalendarEvent.LocalDateTime) {
            if let i = groups.firstIndex(where: {
                $0.isDaylight == isDaylight && $0.offsetFrom == from && $0.offsetTo == to && $0.name == name
            }) {
                groups[i].onsets.append(onset)
            } else {
                groups.append(Observance(isDaylight: isDaylight, offsetFrom: from, offsetTo: to, name: name, onsets: [onset]))
            }
        }
        if before == nil {
            // Nothing changed in the year before the range: one observance in
            // force since long before it (the only one for a zone without DST).
            let start = date(rangeStart)
            let offset = zone.secondsFromGMT(for: start)
            let isDaylight = !inRange.isEmpty && zone.isDaylightSavingTime(for: start)
            add(isDaylight: isDaylight, from: offset, to: offset, name: Self.name(zone, at: start, isDaylight: isDaylight),
                onset: .init(year: min(1970, years.lowerBound - 1), month: 1, day: 1))
        }
        for t in (before.map { [$0] } ?? []) + inRange {
            let from = zone.secondsFromGMT(for: date(t - 1))
            let to = zone.secondsFromGMT(for: date(t))
            let isDaylight = zone.isDaylightSavingTime(for: date(t))
            if from == to && isDaylight == zone.isDaylightSavingTime(for: date(t - 1)) { continue }
            add(isDaylight: isDaylight, from: from, to: to, name: Self.name(zone, at: date(t), isDaylight: isDaylight),
                onset: CalendarCivil.local(seconds: t + Int64(from)))
        }
        observances = groups
    }

    /// A short name such as PST or PDT when the system knows one, else the
    /// offset form Foundation gives (such as GMT+10).
    private static func name(_ zone: TimeZone, at date: Date, isDaylight: Bool) -> String {
        let locale = Locale(identifier: "en_US")
        if let short = zone.localizedName(for: isDaylight ? .shortDaylightSaving : .shortStandard, locale: locale),
           !short.isEmpty, short.allSatisfy({ $0.isASCII && $0.isLetter }) {
            return short
        }
        if let abbreviation = zone.abbreviation(for: date), !abbreviation.isEmpty { return abbreviation }
        return "UTC" + ICalFormat.offset(zone.secondsFromGMT(for: date))
    }

    func write(to out: inout ICalLines) {
        out.add("BEGIN:VTIMEZONE")
        out.add("TZID:" + ICalFormat.text(id))
        out.add("X-LIC-LOCATION:" + ICalFormat.text(id))
        for observance in observances {
            let kind = observance.isDaylight ? "DAYLIGHT" : "STANDARD"
            out.add("BEGIN:" + kind)
            out.add("TZOFFSETFROM:" + ICalFormat.offset(observance.offsetFrom))
            out.add("TZOFFSETTO:" + ICalFormat.offset(observance.offsetTo))
            out.add("TZNAME:" + ICalFormat.text(observance.name))
            out.add("DTSTART:" + observance.onsets[0].description)
            if observance.onsets.count > 1 {
                out.add("RDATE:" + observance.onsets.dropFirst().map(\.description).joined(separator: ","))
            }
            out.add("END:" + kind)
        }
        out.add("END:VTIMEZONE")
    }
}
