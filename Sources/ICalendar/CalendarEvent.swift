import CivilDays
import Foundation

/// One VEVENT of an RFC 5545 calendar: a weekly meeting, a one-off event, an
/// all-day date, or a repeating event read from another calendar.
///
/// Times are wall-clock ("local") times in `timeZone`, an IANA time zone id such
/// as `America/Los_Angeles`; the writer emits them as `DTSTART;TZID=...` with a
/// matching VTIMEZONE, so a weekly 19:00 meeting stays at 19:00 across daylight
/// saving changes. An all-day event is written with dates only and no zone.
/// Nothing here reads the clock: `dtstamp` and `lastModified` are passed in, so
/// the same events always render to the same bytes.
public struct CalendarEvent: Sendable, Hashable {
    /// A wall-clock date and time (no zone, no fractional seconds), as written in
    /// the event's time zone. Comparison is chronological.
    public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var year: Int
        public var month: Int
        public var day: Int
        public var hour: Int
        public var minute: Int
        public var second: Int

        public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
            self.year = year
            self.month = month
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        /// Whether every field is in range (years 1...9999, a real day of the
        /// month, hours 0...23, minutes and seconds 0...59).
        public var isValid: Bool {
            (1...9999).contains(year) && (1...12).contains(month)
                && (1...CalendarCivil.daysInMonth(year: year, month: month)).contains(day)
                && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
        }

        /// The day of the week of this date (proleptic Gregorian calendar).
        public var weekday: WeeklyRecurrence.Weekday {
            WeeklyRecurrence.Weekday.allCases[CalendarCivil.weekdayIndex(days: CalendarCivil.days(year: year, month: month, day: day))]
        }

        /// The same wall-clock time on the first date on or after this one that
        /// falls on `weekday`: for example the first Tuesday of a term, given the
        /// day the term starts and the group's meeting time.
        public func nextOrSame(_ weekday: WeeklyRecurrence.Weekday) -> LocalDateTime {
            let days = CalendarCivil.days(year: year, month: month, day: day)
            let current = CalendarCivil.weekdayIndex(days: days)
            let target = WeeklyRecurrence.Weekday.allCases.firstIndex(of: weekday)!
            let (y, m, d) = CalendarCivil.civil(days: days + Int64((target - current + 7) % 7))
            return LocalDateTime(year: y, month: m, day: d, hour: hour, minute: minute, second: second)
        }

        /// The same time of day `days` days later (earlier when negative).
        public func addingDays(_ days: Int) -> LocalDateTime {
            let (y, m, d) = CalendarCivil.civil(days: CalendarCivil.days(year: year, month: month, day: day) + Int64(days))
            return LocalDateTime(year: y, month: m, day: d, hour: hour, minute: minute, second: second)
        }

        /// Midnight at the start of this date.
        public var startOfDay: LocalDateTime { LocalDateTime(year: year, month: month, day: day) }

        /// This date at a time of day.
        public func at(hour: Int, minute: Int, second: Int = 0) -> LocalDateTime {
            LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        /// `yyyyMMdd`, the iCalendar DATE form.
        public var dateDescription: String {
            CalendarCivil.pad(year, 4) + CalendarCivil.pad(month, 2) + CalendarCivil.pad(day, 2)
        }

        /// `yyyyMMddTHHmmss`, the RFC 5545 DATE-TIME form without a `Z`.
        public var description: String {
            dateDescription + "T" + CalendarCivil.pad(hour, 2) + CalendarCivil.pad(minute, 2) + CalendarCivil.pad(second, 2)
        }

        public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
            (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
                < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
        }
    }

    /// How an event ends: at a wall-clock time in the event's zone (DTEND), or
    /// after an exact length of time (DURATION).
    public enum End: Sendable, Hashable {
        case at(LocalDateTime)
        case duration(seconds: Int)

        /// A duration given in minutes.
        public static func minutes(_ minutes: Int) -> End { .duration(seconds: minutes * 60) }
    }

    /// How an event repeats: every week on one day (built here), or a rule
    /// read from another calendar and written back as it was.
    public enum Recurrence: Sendable, Hashable {
        /// `RRULE:FREQ=WEEKLY;BYDAY=..`, with an optional UNTIL.
        case weekly(WeeklyRecurrence)
        /// An RRULE value as another calendar wrote it (`FREQ=MONTHLY;BYDAY=1FR`),
        /// written unchanged.
        case rule(String)
    }

    /// Stable, globally unique id, e.g. `group-cp-mens-tue@crubatch.cru.org`.
    public var uid: String
    public var summary: String
    public var description: String?
    public var location: String?
    /// A URI (written as is, so it must hold no control characters).
    public var url: String?
    /// Wall-clock start in `timeZone`; for a weekly event, the first meeting,
    /// which must fall on the recurrence's weekday. For an all-day event, the
    /// first day (its time of day is ignored).
    public var start: LocalDateTime
    /// For an all-day event, `.at` the day after the last one (as DTEND says)
    /// or a whole number of days.
    public var end: End
    /// IANA time zone id, e.g. `America/Los_Angeles` or `America/Phoenix`.
    public var timeZone: String
    /// True for an event that takes whole days (DTSTART;VALUE=DATE), such as
    /// a holiday; it has no time of day and no time zone.
    public var isAllDay: Bool
    /// Nil for a one-off event.
    public var recurrence: Recurrence?
    /// Occurrences left out (EXDATE): each the start of an occurrence as a
    /// wall-clock time in `timeZone`, or its date for an all-day event.
    public var exceptions: [LocalDateTime]
    public var categories: [String]
    /// DTSTAMP, written in UTC. Pass a value derived from the data (such as the
    /// row's last change), not "now", so that output is reproducible.
    public var dtstamp: Date
    /// LAST-MODIFIED, written in UTC when present.
    public var lastModified: Date?

    public init(
        uid: String,
        summary: String,
        description: String? = nil,
        location: String? = nil,
        url: String? = nil,
        start: LocalDateTime,
        end: End,
        timeZone: String,
        isAllDay: Bool = false,
        recurrence: Recurrence? = nil,
        exceptions: [LocalDateTime] = [],
        categories: [String] = [],
        dtstamp: Date,
        lastModified: Date? = nil
    ) {
        self.uid = uid
        self.summary = summary
        self.description = description
        self.location = location
        self.url = url
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.isAllDay = isAllDay
        self.recurrence = recurrence
        self.exceptions = exceptions
        self.categories = categories
        self.dtstamp = dtstamp
        self.lastModified = lastModified
    }
}

/// A weekly repetition on one day of the week, written as
/// `RRULE:FREQ=WEEKLY;BYDAY=TU` with an optional `UNTIL`.
public struct WeeklyRecurrence: Sendable, Hashable {
    /// A day of the week; the raw value is the RFC 5545 BYDAY code.
    public enum Weekday: String, Sendable, Hashable, CaseIterable {
        case monday = "MO"
        case tuesday = "TU"
        case wednesday = "WE"
        case thursday = "TH"
        case friday = "FR"
        case saturday = "SA"
        case sunday = "SU"
    }

    public var weekday: Weekday
    /// The last instant an occurrence may start, as a wall-clock time in the
    /// event's time zone (inclusive); written in UTC, as RFC 5545 requires when
    /// DTSTART has a TZID. Nil repeats without end.
    public var until: CalendarEvent.LocalDateTime?

    public init(on weekday: Weekday, until: CalendarEvent.LocalDateTime? = nil) {
        self.weekday = weekday
        self.until = until
    }
}

/// Why a calendar could not be written.
public enum CalendarError: Error, Equatable, CustomStringConvertible {
    /// The time zone id is not in the system time zone database.
    case unknownTimeZone(String)
    /// An event that cannot be written as valid iCalendar; `reason` says why.
    case invalidEvent(uid: String, reason: String)
    /// Two events share a UID.
    case duplicateUID(String)

    public var description: String {
        switch self {
        case .unknownTimeZone(let id):
            "unknown time zone \"\(id)\" (not in the system time zone database)"
        case .invalidEvent(let uid, let reason):
            "calendar event \"\(uid)\": \(reason)"
        case .duplicateUID(let uid):
            "two calendar events have the UID \"\(uid)\""
        }
    }
}

/// Proleptic Gregorian date arithmetic on day numbers (days since 1970-01-01),
/// after Howard Hinnant's algorithms; pure, so output never depends on a locale.
enum CalendarCivil {
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func days(year: Int, month: Int, day: Int) -> Int64 {
        Int64(CivilDay.number(year: year, month: month, day: day))
    }

    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        CivilDay.date(Int(days))
    }

    /// 0 = Monday ... 6 = Sunday.
    static func weekdayIndex(days: Int64) -> Int {
        CivilDay.weekday(Int(days))
    }

    /// Seconds since the epoch of a wall-clock time read as if it were UTC.
    static func seconds(_ t: CalendarEvent.LocalDateTime) -> Int64 {
        days(year: t.year, month: t.month, day: t.day) * 86_400
            + Int64(t.hour * 3600 + t.minute * 60 + t.second)
    }

    /// The wall-clock time `seconds` after the epoch, read as UTC.
    static func local(seconds: Int64) -> CalendarEvent.LocalDateTime {
        let (d, rest) = CivilDay.day(ofSecond: Int(seconds))
        let (y, m, day) = civil(days: Int64(d))
        return .init(year: y, month: m, day: day, hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
