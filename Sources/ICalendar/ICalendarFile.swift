import Foundation

/// A value read from a file with the physical line of the content line it came from.
public struct Located<Value: Sendable>: Sendable {
    public var value: Value
    public var line: Int

    public init(value: Value, line: Int) {
        self.value = value
        self.line = line
    }
}

/// A property of an event whose value could not be read: where it is, which property, and why.
public struct EventProblem: Sendable, Equatable {
    public var line: Int
    /// The property name (`DTSTART`, `RRULE` ...).
    public var property: String
    public var message: String
    /// True when the value is fine but its TZID names no time zone this reader can find.
    public var isUnknownTimeZone = false
}

/// A date or a date-time as an iCalendar file writes it.
public enum CalendarTime: Sendable, Hashable {
    /// A date without a time of day (`VALUE=DATE`), as all-day events have.
    case date(CalendarEvent.LocalDateTime)
    /// A wall-clock time without a zone ("floating"): the same clock time wherever it is read.
    case floating(CalendarEvent.LocalDateTime)
    /// A wall-clock time in a time zone of the tz database (its TZID, resolved).
    case zoned(CalendarEvent.LocalDateTime, timeZone: String)
    /// An instant in UTC (a trailing `Z`).
    case utc(CalendarEvent.LocalDateTime)

    /// The wall-clock time this is in `zone` (an IANA id): an instant converted; a date or a
    /// floating time as it is. Nil when a zone involved is not in the system time zone database.
    public func wallClock(in zone: String) -> CalendarEvent.LocalDateTime? {
        switch self {
        case .date(let time), .floating(let time): return time
        case .zoned(let time, let own) where own == zone: return time
        case .zoned(let time, let own):
            guard let from = ICalFormat.timeZone(own), let to = ICalFormat.timeZone(zone) else { return nil }
            return Self.local(ICalFormat.instant(of: time, in: from), in: to)
        case .utc(let time):
            guard let to = ICalFormat.timeZone(zone) else { return nil }
            return Self.local(Date(timeIntervalSince1970: TimeInterval(CalendarCivil.seconds(time))), in: to)
        }
    }

    /// The value as an iCalendar file writes it, without its zone: `20261020T190000`,
    /// `20261021T020000Z` or `20261020`.
    public var text: String {
        switch self {
        case .date(let day): day.dateDescription
        case .floating(let time), .zoned(let time, _): time.description
        case .utc(let time): time.description + "Z"
        }
    }

    /// True for a date without a time of day.
    public var isDate: Bool {
        if case .date = self { return true }
        return false
    }

    /// The time of day and date as written, whatever its zone.
    var written: CalendarEvent.LocalDateTime {
        switch self {
        case .date(let time), .floating(let time), .zoned(let time, _), .utc(let time): time
        }
    }

    /// The same kind of time moved by whole days and seconds of wall-clock time.
    func adding(days: Int, seconds: Int) -> CalendarTime {
        let moved = CalendarCivil.local(seconds: CalendarCivil.seconds(written.addingDays(days)) + Int64(seconds))
        switch self {
        case .date: return .date(moved.startOfDay)
        case .floating: return .floating(moved)
        case .zoned(_, let zone): return .zoned(moved, timeZone: zone)
        case .utc: return .utc(moved)
        }
    }

    private static func local(_ instant: Date, in zone: TimeZone) -> CalendarEvent.LocalDateTime {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        return CalendarCivil.local(seconds: seconds + Int64(zone.secondsFromGMT(for: instant)))
    }
}

/// The events of an iCalendar file (an export of Google Calendar, Outlook or Apple Calendar, or a
/// feed), each property read into a typed value with its line. Values that cannot be read are left
/// out of the event and listed in its `problems`; a file whose structure is broken throws.
///
/// A TZID is resolved to a tz database zone: a zone name itself, the X-LIC-LOCATION of the file's
/// VTIMEZONE of that TZID, a Windows zone name (`Pacific Standard Time`), or a zone name at the end
/// of a longer TZID (`/mozilla.org/20050126_1/America/New_York`).
public struct ICalendarFile: Sendable {
    /// One VEVENT. Times are as the file writes them; `end` comes from DTEND, or from DTSTART and
    /// DURATION (wall-clock arithmetic).
    public struct Event: Sendable {
        /// The physical line of BEGIN:VEVENT.
        public var line: Int
        public var uid: Located<String>?
        public var summary: Located<String>?
        public var description: Located<String>?
        public var location: Located<String>?
        public var url: Located<String>?
        public var start: Located<CalendarTime>?
        public var end: Located<CalendarTime>?
        /// The RRULE value as written.
        public var rule: Located<String>?
        /// Every EXDATE value, in file order.
        public var exceptions: [Located<CalendarTime>] = []
        /// STATUS in upper case (`CONFIRMED`, `TENTATIVE`, `CANCELLED`).
        public var status: String?
        /// For one changed or cancelled occurrence of a repeating event: the start it replaces.
        public var recurrenceID: Located<CalendarTime>?
        public var problems: [EventProblem] = []

        /// STATUS:CANCELLED.
        public var isCancelled: Bool { status == "CANCELLED" }
    }

    /// X-WR-CALNAME, the calendar's display name.
    public let name: String?
    /// X-WR-TIMEZONE as a tz database zone: the zone of floating and UTC times, for readers that
    /// need one.
    public let timeZone: String?
    public let events: [Event]

    /// Reads a whole file. Throws when it is not an iCalendar file or its structure is broken.
    public init(bytes: [UInt8]) throws(ICalendarSyntaxError) {
        let calendars = try ICalendarReader.components(of: bytes)
        var events: [Event] = []
        var name: String?
        var timeZone: String?
        for calendar in calendars {
            let zones = TimeZoneResolver(calendar: calendar)
            name = name ?? calendar.property("X-WR-CALNAME").map { CalendarValueParser.text($0.value) }
            timeZone = timeZone ?? calendar.property("X-WR-TIMEZONE").flatMap { zones.zone(forTZID: $0.value) }
            events += calendar.components.filter { $0.name == "VEVENT" }.map { Self.event($0, zones: zones) }
        }
        self.name = name
        self.timeZone = timeZone
        self.events = events
    }

    private static func event(_ component: CalendarComponent, zones: TimeZoneResolver) -> Event {
        var event = Event(line: component.line)
        var duration: Located<(days: Int, seconds: Int)>?
        func located<Value>(_ property: ContentLine, _ value: Value) -> Located<Value> { Located(value: value, line: property.line) }
        func problem(_ property: ContentLine, _ message: String, unknownTimeZone: Bool = false) {
            event.problems.append(EventProblem(line: property.line, property: property.name, message: message,
                                               isUnknownTimeZone: unknownTimeZone))
        }
        func time(_ property: ContentLine, value: String? = nil) -> CalendarTime? {
            let text = value ?? property.value
            var zone: String?
            if let tzid = property.parameter("TZID"), !text.hasSuffix("Z") {
                zone = zones.zone(forTZID: tzid)
                if zone == nil {
                    problem(property, "TZID \(String(reflecting: tzid)) is not a time zone: not a tz database name, "
                        + "a Windows zone name, nor a VTIMEZONE with an X-LIC-LOCATION", unknownTimeZone: true)
                    return nil
                }
            }
            let wantsDate = property.parameter("VALUE")?.uppercased() == "DATE"
            guard let parsed = CalendarValueParser.time(text, timeZone: zone), !wantsDate || parsed.isDate else {
                problem(property, "\(String(reflecting: text)) is not a \(wantsDate ? "date (YYYYMMDD)" : "date-time (YYYYMMDDTHHMMSS)")")
                return nil
            }
            return parsed
        }
        for property in component.properties {
            switch property.name {
            case "UID" where event.uid == nil: event.uid = located(property, CalendarValueParser.text(property.value))
            case "SUMMARY" where event.summary == nil: event.summary = located(property, CalendarValueParser.text(property.value))
            case "DESCRIPTION" where event.description == nil:
                event.description = located(property, CalendarValueParser.text(property.value))
            case "LOCATION" where event.location == nil: event.location = located(property, CalendarValueParser.text(property.value))
            case "URL" where event.url == nil: event.url = located(property, property.value)
            case "STATUS" where event.status == nil: event.status = property.value.uppercased()
            case "DTSTART" where event.start == nil: event.start = time(property).map { located(property, $0) }
            case "DTEND" where event.end == nil: event.end = time(property).map { located(property, $0) }
            case "RECURRENCE-ID" where event.recurrenceID == nil:
                event.recurrenceID = time(property).map { located(property, $0) }
            case "DURATION" where duration == nil:
                if let parsed = CalendarValueParser.duration(property.value) {
                    duration = located(property, parsed)
                } else {
                    problem(property, "\(String(reflecting: property.value)) is not a duration (such as PT1H30M or P1D)")
                }
            case "RRULE" where event.rule == nil:
                if let reason = RecurrenceRule.problem(in: property.value) {
                    problem(property, "\(String(reflecting: property.value)) is not a recurrence rule: \(reason)")
                } else {
                    event.rule = located(property, property.value)
                }
            case "EXDATE":
                for value in property.value.split(separator: ",") {
                    if let exception = time(property, value: String(value)) { event.exceptions.append(located(property, exception)) }
                }
            default:
                break
            }
        }
        if event.end == nil, let duration, let start = event.start {
            event.end = Located(value: start.value.adding(days: duration.value.days, seconds: duration.value.seconds),
                                line: duration.line)
        }
        return event
    }
}

/// Resolves the TZIDs of one VCALENDAR to tz database zones.
struct TimeZoneResolver {
    /// X-LIC-LOCATION of each VTIMEZONE, by TZID.
    private let locations: [String: String]

    init(calendar: CalendarComponent) {
        var locations: [String: String] = [:]
        for zone in calendar.components where zone.name == "VTIMEZONE" {
            if let tzid = zone.property("TZID")?.value, let location = zone.property("X-LIC-LOCATION")?.value {
                locations[tzid] = location
            }
        }
        self.locations = locations
    }

    func zone(forTZID tzid: String) -> String? {
        let candidates = [tzid, locations[tzid], WindowsTimeZones.zone(named: tzid)].compactMap { $0 }
            + Self.trailingNames(of: tzid)
        return candidates.first { ICalFormat.timeZone($0) != nil }
    }

    /// `Area/City` and `Area/Region/City` at the end of a longer TZID, longest first.
    private static func trailingNames(of tzid: String) -> [String] {
        let parts = tzid.split(separator: "/")
        guard parts.count > 2 else { return [] }
        return [3, 2].filter { $0 < parts.count }.map { parts.suffix($0).joined(separator: "/") }
    }
}

/// The iCalendar value types that events use: TEXT, DATE, DATE-TIME and DURATION.
enum CalendarValueParser {
    /// A TEXT value with `\\`, `\;`, `\,` and `\n` (or `\N`) unescaped.
    static func text(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// `YYYYMMDD` (a date), `YYYYMMDDTHHMMSS` (in `timeZone`, floating without one) or
    /// `YYYYMMDDTHHMMSSZ` (UTC); nil for anything else or an impossible date or time.
    static func time(_ text: String, timeZone: String?) -> CalendarTime? {
        let characters = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= characters.count,
                  characters[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(String(decoding: characters[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        if characters.count == 8 {
            let date = CalendarEvent.LocalDateTime(year: year, month: month, day: day)
            return date.isValid ? .date(date) : nil
        }
        guard characters.count == 15 || (characters.count == 16 && characters[15] == UInt8(ascii: "Z")),
              characters[8] == UInt8(ascii: "T"),
              let hour = number(9..<11), let minute = number(11..<13), var second = number(13..<15) else { return nil }
        // A leap second (60) is read as the last second of its minute.
        second = min(second, 59)
        let time = CalendarEvent.LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard time.isValid else { return nil }
        if characters.count == 16 { return .utc(time) }
        return timeZone.map { .zoned(time, timeZone: $0) } ?? .floating(time)
    }

    /// A DURATION (`PT1H30M`, `P1D`, `P2W`, `-PT15M`) as whole days and seconds.
    static func duration(_ text: String) -> (days: Int, seconds: Int)? {
        var rest = Substring(text.uppercased())
        var sign = 1
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var days = 0, seconds = 0, inTime = false, digits = "", sawValue = false
        for character in rest {
            switch character {
            case "0"..."9": digits.append(character)
            case "T" where !inTime && digits.isEmpty: inTime = true
            case "W", "D", "H", "M", "S":
                guard let value = Int(digits) else { return nil }
                switch (character, inTime) {
                case ("W", false): days += 7 * value
                case ("D", false): days += value
                case ("H", true): seconds += 3600 * value
                case ("M", true): seconds += 60 * value
                case ("S", true): seconds += value
                default: return nil
                }
                digits = ""
                sawValue = true
            default:
                return nil
            }
        }
        guard sawValue, digits.isEmpty else { return nil }
        return (sign * days, sign * seconds)
    }
}
