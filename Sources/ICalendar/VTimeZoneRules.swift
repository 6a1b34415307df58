import Foundation

/// What a VTIMEZONE of the file itself says: its STANDARD and DAYLIGHT observances, each an offset
/// from UTC in force from its onsets (DTSTART, the yearly RRULE, RDATEs) on. A TZID that names no
/// zone (`GMT +0100 (Standard) / GMT +0200 (Daylight)`, `(UTC-05:00) Eastern Time (US & Canada)`)
/// means only what these rules say; `offset(at:)` and `instant(of:)` read times by them, and
/// `matches(_:in:)` tells whether a zone of the tz database keeps the same offsets.
struct VTimeZoneRules: Sendable {
    /// One STANDARD or DAYLIGHT block.
    struct Observance: Sendable {
        var offsetFrom: Int
        var offsetTo: Int
        /// DTSTART: the first onset, as a wall-clock time in `offsetFrom`.
        var start: CalendarEvent.LocalDateTime
        var rule: YearlyRule?
        /// RDATE: further onsets, wall-clock times in `offsetFrom`.
        var dates: [CalendarEvent.LocalDateTime]
    }

    /// A change of offset: at `instant` (seconds since 1970, UTC), from `before` to `after`.
    struct Transition: Equatable {
        var instant: Int64
        var before: Int
        var after: Int
    }

    /// The physical line of BEGIN:VTIMEZONE.
    let line: Int
    let observances: [Observance]

    /// Reads a VTIMEZONE; throws why it cannot be read (an observance without its offsets or start,
    /// a rule this reader does not expand).
    init(_ component: CalendarComponent) throws(ICalendarSyntaxError) {
        line = component.line
        var observances: [Observance] = []
        for block in component.components where block.name == "STANDARD" || block.name == "DAYLIGHT" {
            func fail(_ message: String) -> ICalendarSyntaxError {
                ICalendarSyntaxError(line: block.line, message: "\(block.name) of VTIMEZONE: \(message)")
            }
            guard let from = block.property("TZOFFSETFROM").flatMap({ Self.offset($0.value) }),
                let to = block.property("TZOFFSETTO").flatMap({ Self.offset($0.value) })
            else {
                throw fail("TZOFFSETFROM and TZOFFSETTO must be offsets such as -0800")
            }
            guard let startText = block.property("DTSTART")?.value,
                case .floating(let start)? = CalendarValueParser.time(startText, timeZone: nil)
            else {
                throw fail("DTSTART must be a local date-time such as 16010101T020000")
            }
            var rule: YearlyRule?
            if let text = block.property("RRULE")?.value {
                do {
                    rule = try YearlyRule(text, start: start)
                } catch {
                    throw fail("RRULE \(String(reflecting: text)): \(error.reason)")
                }
            }
            let dates = block.properties.filter { $0.name == "RDATE" }
                .flatMap { $0.value.split(separator: ",") }
                .compactMap { value -> CalendarEvent.LocalDateTime? in
                    if case .floating(let time)? = CalendarValueParser.time(String(value), timeZone: nil) {
                        return time
                    }
                    return nil
                }
            observances.append(Observance(offsetFrom: from, offsetTo: to, start: start, rule: rule, dates: dates))
        }
        guard !observances.isEmpty else {
            throw ICalendarSyntaxError(line: component.line, message: "the VTIMEZONE has no STANDARD or DAYLIGHT block")
        }
        self.observances = observances
    }

    /// Every onset from the start of `years` (and the last one before it) to their end, in order:
    /// its instant and the offset it brings. Onsets that change nothing are kept.
    private func onsets(in years: ClosedRange<Int>) -> [(instant: Int64, offset: Int)] {
        var onsets: [(instant: Int64, offset: Int)] = []
        for observance in observances {
            var locals = observance.dates + [observance.start]
            if let rule = observance.rule {
                locals += rule.onsets(in: (years.lowerBound - 1)...years.upperBound, from: observance.start)
            }
            for local in locals where local.year <= years.upperBound {
                onsets.append((CalendarCivil.seconds(local) - Int64(observance.offsetFrom), observance.offsetTo))
            }
        }
        onsets.sort { $0.instant < $1.instant }
        let rangeStart = CalendarCivil.seconds(.init(year: years.lowerBound, month: 1, day: 1))
        let lastBefore = onsets.lastIndex { $0.instant < rangeStart }
        return Array(onsets[(lastBefore ?? 0)...])
    }

    /// The changes of offset within `years`, and the offset in force when they begin.
    func transitions(in years: ClosedRange<Int>) -> (initial: Int, changes: [Transition]) {
        let onsets = onsets(in: years)
        let rangeStart = CalendarCivil.seconds(.init(year: years.lowerBound, month: 1, day: 1))
        var current =
            onsets.first.map { $0.instant < rangeStart ? $0.offset : observances[0].offsetFrom }
            ?? observances[0].offsetFrom
        let initial = current
        var changes: [Transition] = []
        for onset in onsets where onset.instant >= rangeStart && onset.offset != current {
            changes.append(Transition(instant: onset.instant, before: current, after: onset.offset))
            current = onset.offset
        }
        return (initial, changes)
    }

    /// The offset from UTC in force at an instant.
    func offset(at instant: Int64) -> Int {
        let year = CalendarCivil.local(seconds: instant).year
        let (initial, changes) = transitions(in: year...year)
        return changes.last { $0.instant <= instant }?.after ?? initial
    }

    /// The instant a wall-clock time stands for: in an hour that occurs twice, the first; in an hour
    /// the clocks skip, read with the offset in force before the change.
    func instant(of local: CalendarEvent.LocalDateTime) -> Int64 {
        let wall = CalendarCivil.seconds(local)
        let offsets = Set(observances.flatMap { [$0.offsetFrom, $0.offsetTo] })
        if let offset = offsets.filter({ offset(at: wall - Int64($0)) == $0 }).max() { return wall - Int64(offset) }
        return wall - Int64(offset(at: wall - Int64(offsets.max() ?? 0)))
    }

    /// Whether `zone` has the same offsets as these rules throughout `years`, changing at the same
    /// instants.
    func matches(_ zone: TimeZone, in years: ClosedRange<Int>) -> Bool {
        let (initial, changes) = transitions(in: years)
        let rangeStart = CalendarCivil.seconds(.init(year: years.lowerBound, month: 1, day: 1))
        let rangeEnd = CalendarCivil.seconds(.init(year: years.upperBound + 1, month: 1, day: 1))
        func offset(_ seconds: Int64) -> Int {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        guard offset(rangeStart) == initial else { return false }
        var zoneChanges: [Transition] = []
        var cursor = Date(timeIntervalSince1970: TimeInterval(rangeStart))
        while zoneChanges.count <= changes.count, let next = zone.nextDaylightSavingTimeTransition(after: cursor),
            next > cursor, next.timeIntervalSince1970 < TimeInterval(rangeEnd)
        {
            let instant = Int64(next.timeIntervalSince1970.rounded(.down))
            if offset(instant - 1) != offset(instant) {
                zoneChanges.append(Transition(instant: instant, before: offset(instant - 1), after: offset(instant)))
            }
            cursor = next
        }
        return zoneChanges == changes.filter { $0.instant < rangeEnd }
    }

    /// `+HHMM` or `+HHMMSS` in seconds.
    private static func offset(_ text: String) -> Int? {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        guard characters.count == 5 || characters.count == 7, characters[0] == "+" || characters[0] == "-",
            characters.dropFirst().allSatisfy(\.isASCII), characters.dropFirst().allSatisfy(\.isNumber),
            let hours = Int(String(characters[1...2])), let minutes = Int(String(characters[3...4])), minutes < 60
        else {
            return nil
        }
        let seconds = characters.count == 7 ? Int(String(characters[5...6])) ?? 0 : 0
        return (characters[0] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60 + seconds)
    }
}

/// The yearly rule of a VTIMEZONE observance: in the months of BYMONTH, the day BYDAY names (`2SU`,
/// `-1SU`, or `SU` among the days of BYMONTHDAY) or the day of BYMONTHDAY, at DTSTART's time of day,
/// until UNTIL or for COUNT years. Other rules are refused: no zone's rules need them.
struct YearlyRule: Sendable {
    /// Why a rule is not one this reader expands.
    struct Refusal: Error {
        let reason: String
    }

    var months: [Int]
    /// The nth weekday of the month (negative: counted from its end); nil n: the weekday among `monthDays`.
    var weekday: (n: Int?, index: Int)?
    var monthDays: [Int]
    var until: CalendarEvent.LocalDateTime?
    var count: Int?

    init(_ text: String, start: CalendarEvent.LocalDateTime) throws(Refusal) {
        var months = [start.month], weekday: (n: Int?, index: Int)?, monthDays: [Int] = []
        var until: CalendarEvent.LocalDateTime?, count: Int?, frequency: String?
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).uppercased() }
            guard pair.count == 2 else { throw Refusal(reason: "\"\(part)\" is not NAME=VALUE") }
            let values = pair[1].split(separator: ",").map(String.init)
            switch pair[0] {
            case "FREQ": frequency = pair[1]
            case "INTERVAL" where pair[1] == "1", "WKST": break
            case "BYMONTH":
                months = values.compactMap { Int($0) }.filter { (1...12).contains($0) }
                guard months.count == values.count else {
                    throw Refusal(reason: "BYMONTH=\(pair[1]) is not months 1 to 12")
                }
            case "BYMONTHDAY":
                monthDays = values.compactMap { Int($0) }.filter { (1...31).contains($0) }
                guard monthDays.count == values.count else {
                    throw Refusal(reason: "BYMONTHDAY=\(pair[1]) is not days 1 to 31")
                }
            case "BYDAY":
                guard values.count == 1,
                    let index = WeeklyRecurrence.Weekday.allCases.firstIndex(where: {
                        $0.rawValue == values[0].suffix(2)
                    })
                else {
                    throw Refusal(reason: "BYDAY=\(pair[1]) is not one day such as 2SU or -1SU")
                }
                let prefix = values[0].dropLast(2)
                guard prefix.isEmpty || Int(prefix).map({ (1...5).contains(abs($0)) }) == true else {
                    throw Refusal(reason: "BYDAY=\(pair[1]) is not one day such as 2SU or -1SU")
                }
                weekday = (prefix.isEmpty ? nil : Int(prefix), index)
            case "UNTIL":
                switch CalendarValueParser.time(pair[1], timeZone: nil) {
                case .utc(let time)?, .floating(let time)?: until = time
                case .date(let day)?: until = day.at(hour: 23, minute: 59, second: 59)
                default: throw Refusal(reason: "UNTIL=\(pair[1]) is not a date-time")
                }
            case "COUNT":
                guard let number = Int(pair[1]), number > 0 else {
                    throw Refusal(reason: "COUNT=\(pair[1]) is not a number")
                }
                count = number
            default:
                throw Refusal(reason: "\(pair[0])=\(pair[1]) is not part of a yearly change of offset")
            }
        }
        guard frequency == "YEARLY" else { throw Refusal(reason: "a change of offset repeats yearly (FREQ=YEARLY)") }
        guard weekday != nil || !monthDays.isEmpty else {
            throw Refusal(reason: "BYDAY or BYMONTHDAY must say which day")
        }
        if weekday?.n == nil && weekday != nil && monthDays.isEmpty {
            throw Refusal(reason: "BYDAY without a number needs BYMONTHDAY")
        }
        self.months = months
        self.weekday = weekday
        self.monthDays = monthDays
        self.until = until
        self.count = count
    }

    /// The onsets in `years` at `start`'s time of day, none before `start`, UNTIL or COUNT.
    func onsets(in years: ClosedRange<Int>, from start: CalendarEvent.LocalDateTime) -> [CalendarEvent.LocalDateTime] {
        var onsets: [CalendarEvent.LocalDateTime] = []
        let firstYear = max(years.lowerBound, start.year)
        guard firstYear <= years.upperBound else { return [] }
        for year in firstYear...years.upperBound {
            for (position, month) in months.enumerated() {
                if let count, (year - start.year) * months.count + position >= count { return onsets }
                guard let day = day(in: year, month: month) else { continue }
                let onset = CalendarEvent.LocalDateTime(
                    year: year, month: month, day: day, hour: start.hour,
                    minute: start.minute, second: start.second)
                if onset < start { continue }
                if let until, onset > until { return onsets }
                onsets.append(onset)
            }
        }
        return onsets
    }

    /// The day of the month the rule picks in one month, if any.
    private func day(in year: Int, month: Int) -> Int? {
        let length = CalendarCivil.daysInMonth(year: year, month: month)
        func weekdayIndex(_ day: Int) -> Int {
            CalendarCivil.weekdayIndex(days: CalendarCivil.days(year: year, month: month, day: day))
        }
        guard let weekday else { return monthDays.first { $0 <= length } }
        guard let n = weekday.n else { return monthDays.first { $0 <= length && weekdayIndex($0) == weekday.index } }
        let matching = (1...length).filter { weekdayIndex($0) == weekday.index }
        let position = n > 0 ? n - 1 : matching.count + n
        return matching.indices.contains(position) ? matching[position] : nil
    }
}
