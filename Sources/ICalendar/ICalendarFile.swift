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

/// A property of an event whose value could not be read, or was read by an assumption: where it
/// is, which property, and why.
public struct EventProblem: Sendable, Equatable {
    /// What the problem costs the event.
    public enum Kind: Sendable, Equatable {
        /// The value cannot be read: the event cannot be imported as it is.
        case unreadable
        /// Its TZID names no time zone this reader can find or build.
        case unknownTimeZone
        /// The property is left out and the rest of the event kept.
        case leftOut
        /// The value is read by an assumption a person should check.
        case assumed
    }

    public var line: Int
    /// The property name (`DTSTART`, `RRULE` ...).
    public var property: String
    public var message: String
    public var kind = Kind.unreadable
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
    /// A wall-clock time whose offset from UTC its TZID's VTIMEZONE gives, where no tz database zone
    /// keeps that VTIMEZONE's rules: an instant, written as the file wrote it.
    case offset(CalendarEvent.LocalDateTime, seconds: Int)

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
        case .offset(let time, let offset):
            guard let to = ICalFormat.timeZone(zone) else { return nil }
            return Self.local(Date(timeIntervalSince1970: TimeInterval(CalendarCivil.seconds(time) - Int64(offset))), in: to)
        }
    }

    /// The value as an iCalendar file writes it, without its zone: `20261020T190000`,
    /// `20261021T020000Z` or `20261020`.
    public var text: String {
        switch self {
        case .date(let day): day.dateDescription
        case .floating(let time), .zoned(let time, _), .offset(let time, _): time.description
        case .utc(let time): time.description + "Z"
        }
    }

    /// True for a date without a time of day.
    public var isDate: Bool {
        if case .date = self { return true }
        return false
    }

    /// The time of day and date as written, whatever its zone.
    public var written: CalendarEvent.LocalDateTime {
        switch self {
        case .date(let time), .floating(let time), .zoned(let time, _), .utc(let time), .offset(let time, _): time
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
        case .offset(_, let offset): return .offset(moved, seconds: offset)
        }
    }

    private static func local(_ instant: Date, in zone: TimeZone) -> CalendarEvent.LocalDateTime {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        return CalendarCivil.local(seconds: seconds + Int64(zone.secondsFromGMT(for: instant)))
    }
}

/// The events of an iCalendar file (an export of Google Calendar, Outlook or Apple Calendar, or a
/// feed), each property read into a typed value with its line (`VEventReader`). Values that cannot
/// be read are left out of the event and listed in its `problems`, lines that are no content line in
/// `unreadableLines`; only a file whose structure is broken throws. TZIDs are resolved by
/// `TimeZoneResolver`.
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
        /// X-CRUBATCH-TIMEZONE, which crubatch writes on an all-day event: the zone its dates belong to.
        public var timeZone: Located<String>?
        public var problems: [EventProblem] = []
        /// The lines of the event (and of its alarms) that hold no content line, skipped.
        public var unreadableLines: [ICalendarSyntaxError] = []

        /// STATUS:CANCELLED.
        public var isCancelled: Bool { status == "CANCELLED" }
    }

    /// X-WR-CALNAME, the calendar's display name.
    public let name: String?
    /// X-WR-TIMEZONE as a tz database zone: the zone of floating and UTC times, for readers that
    /// need one.
    public let timeZone: String?
    public let events: [Event]
    /// The lines outside every event that hold no content line, skipped.
    public let unreadableLines: [ICalendarSyntaxError]

    /// Reads a whole file. Throws when it is not an iCalendar file or its structure is broken.
    public init(bytes: [UInt8]) throws(ICalendarSyntaxError) {
        let calendars = try ICalendarReader.components(of: bytes)
        var events: [Event] = []
        var name: String?
        var timeZone: String?
        var unreadable: [ICalendarSyntaxError] = []
        for calendar in calendars {
            let zones = TimeZoneResolver(calendar: calendar, years: Self.years(of: calendar))
            name = name ?? calendar.property("X-WR-CALNAME").map { CalendarValueParser.text($0.value) }
            timeZone = timeZone ?? calendar.property("X-WR-TIMEZONE").flatMap { zones.zone(named: $0.value) }
            events += calendar.components.filter { $0.name == "VEVENT" }.map { VEventReader(zones: zones).event($0) }
            unreadable += calendar.unreadableLines
                + calendar.components.filter { $0.name != "VEVENT" }.flatMap(VEventReader.unreadableLines(in:))
        }
        self.name = name
        self.timeZone = timeZone
        self.events = events
        self.unreadableLines = unreadable.sorted { $0.line < $1.line }
    }

    /// The years of a calendar's events (their dates and their rules' UNTIL), in which a VTIMEZONE's
    /// rules must agree with a zone's: from the first to the year after the last.
    private static func years(of calendar: CalendarComponent) -> ClosedRange<Int> {
        let dated: Set<String> = ["DTSTART", "DTEND", "RECURRENCE-ID", "EXDATE", "RDATE"]
        let years = calendar.components.filter { $0.name == "VEVENT" }.flatMap(\.properties).flatMap { property -> [Int] in
            if dated.contains(property.name) { return property.value.split(separator: ",").compactMap { Int($0.prefix(4)) } }
            if property.name == "RRULE" { return RecurrenceRule.untilYear(property.value).map { [$0] } ?? [] }
            return []
        }.filter { (1900...2200).contains($0) }
        guard let first = years.min(), let last = years.max() else { return 2000...2001 }
        return first...(last + 1)
    }
}
