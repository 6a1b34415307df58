import FileOutput
import ICalendar
import Foundation
import PostgresClient

/// What a calendar export holds.
public enum CalendarContent: Sendable, Equatable {
    /// The groups' weekly meetings, inside their campus's terms, and the events.
    case meetingsAndEvents
    /// The academic calendar: each term's first and last day of classes and its breaks, as all-day events.
    case academicTerms
}

extension Exporter {
    /// A scope's calendar as iCalendar: the groups' weekly meetings (in their campus's time zone, one
    /// series per term, break days left out) and the events, or the academic calendar. It is named
    /// after the ministry, campus or group. Output is deterministic: DTSTAMP is each row's
    /// `updated_at`. An event that iCalendar cannot hold (its end not after its start) is left out and
    /// listed in the result's `leftOut`. Throws `UnexportableData`, before anything is written, when a
    /// time zone of the scope cannot be used or the calendar as a whole cannot be written.
    public func exportCalendar(_ scope: ExportScope, content: CalendarContent = .meetingsAndEvents, to target: OutputTarget,
                               today: Date = Date()) throws -> ExportedFile {
        let (events, leftOut) = try calendarEvents(scope, content: content, today: today)
        let year = Calendar(identifier: .gregorian).component(.year, from: today)
        let writer = ICalendarWriter(name: try calendarName(scope, content: content), years: (year - 1)...(year + 2))
        let calendar: [UInt8]
        do {
            calendar = try writer.render(events)
        } catch let error as CalendarError {
            throw UnexportableData("the calendar of \(scope.label) cannot be written: \(error)")
        }
        let sink = try ExportSink(target)
        try sink.write(calendar)
        return try sink.finish(rows: events.count, leftOut: leftOut)
    }

    /// The same events as one JSON document, for scripts: wall-clock times in each event's zone.
    public func exportCalendarJSON(_ scope: ExportScope, content: CalendarContent = .meetingsAndEvents,
                                   to target: OutputTarget, today: Date = Date()) throws -> ExportedFile {
        let (events, leftOut) = try calendarEvents(scope, content: content, today: today)
        let document = CalendarDocument(name: try calendarName(scope, content: content),
                                        events: events.map(CalendarDocument.Event.init), leftOut: leftOut)
        let sink = try ExportSink(target)
        try sink.write(Array((ReportDocument.json(document, command: "export") + "\n").utf8))
        return try sink.finish(rows: events.count, leftOut: leftOut)
    }

    /// The events of a calendar, once the time zones they need are checked, and the events left out
    /// because a calendar cannot hold them.
    private func calendarEvents(_ scope: ExportScope, content: CalendarContent, today: Date) throws
        -> (events: [CalendarEvent], leftOut: [LeftOutRow]) {
        switch content {
        case .meetingsAndEvents:
            try requireCalendarTimeZones(scope)
            let (events, leftOut) = try eventEvents(scope)
            return (try groupEvents(scope, today: today) + events, leftOut)
        case .academicTerms:
            return (try termEvents(scope), [])
        }
    }

    /// `Cru Cal Poly — Cal Poly San Luis Obispo` for a ministry, `Cru at Cal Poly San Luis Obispo` for
    /// a campus, the group and its ministry for a group; the academic calendar is its campus's.
    private func calendarName(_ scope: ExportScope, content: CalendarContent) throws -> String {
        let region = "Cru Central Coast"
        guard scope != .everything else { return content == .academicTerms ? "\(region) — academic calendar" : region }
        let rows = try connection.query("""
            select coalesce(g.name, ''), coalesce(mi.name, ''), c.name
            from campuses c left join ministries mi on mi.campus_id = c.id left join community_groups g on g.ministry_id = mi.id
            where \(scope.condition) limit 1
            """).rows
        guard let row = rows.first else { return "Cru \(scope.label)" }
        let (group, ministry, campus) = try row.decode((String, String, String).self)
        if content == .academicTerms { return "Academic calendar — \(campus)" }
        switch scope {
        case .group: return "\(group) — \(ministry)"
        case .ministry: return "\(ministry) — \(campus)"
        case .campus, .everything: return "Cru at \(campus)"
        }
    }

    /// Fails when a campus or an event of the scope has a time zone no calendar can use (rows written
    /// by SQL skip `import`'s check); checked before any query converts times in it.
    private func requireCalendarTimeZones(_ scope: ExportScope) throws {
        let rows = try connection.query("""
            select 'campus', c.code, c.timezone \(meetingGroups(scope))
            union select 'event', ev.code, ev.timezone from events ev where \(eventFilter(scope))
            order by 1, 2
            """).rows
        var problems: [String] = []
        for row in rows {
            let (noun, code, zone) = try row.decode((String, String, String).self)
            if try !calendarTimeZones.contains(zone) {
                problems.append("\(noun) \(String(reflecting: code)) has time zone \(String(reflecting: zone))")
            }
        }
        guard problems.isEmpty else {
            throw UnexportableData(problems.joined(separator: "; ")
                + ", which is not a tz database time zone that this PostgreSQL server knows; set a name such as America/Los_Angeles")
        }
    }

    /// The groups of a scope that meet weekly (a day and a time), over `g`, `mi` and `c`.
    private func meetingGroups(_ scope: ExportScope) -> PostgresQuery {
        """
        from community_groups g join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
        where \(scope.condition) and \(unescaped: KindCatalog.groupInUse)
        and g.meeting_day is not null and g.meeting_time is not null
        """
    }

    /// The events of a scope, over `ev`: all of them, or those of a ministry in the scope; archived
    /// events are left out.
    private func eventFilter(_ scope: ExportScope) -> PostgresQuery {
        let current = Retirement.archive.isCurrent(over: "ev")
        return scope == .everything ? "\(unescaped: current)" : """
            \(unescaped: current) and exists (select 1 from event_ministries em join ministries mi on mi.id = em.ministry_id
                    join campuses c on c.id = mi.campus_id
                    left join community_groups g on g.ministry_id = mi.id
                    where em.event_id = ev.id and \(scope.condition))
            """
    }

    /// The terms of the campuses of a scope, in date order; archived terms and campuses are left out.
    private func academicTerms(_ scope: ExportScope) throws -> [AcademicTerm] {
        let current = SQLFragment(joining: (["t", "c"] as [SQLFragment]).map(Retirement.archive.isCurrent(over:)),
                                  separator: " and ")
        let rows = try connection.query("""
            select c.id, c.code, c.name, c.timezone, t.code, t.name, to_char(t.starts_on, 'YYYY-MM-DD'), to_char(t.ends_on, 'YYYY-MM-DD'), t.breaks::text,
                   extract(epoch from t.updated_at)::bigint
            from terms t join campuses c on c.id = t.campus_id
            where \(unescaped: current) and c.id in (select c.id from campuses c left join ministries mi on mi.campus_id = c.id
                           left join community_groups g on g.ministry_id = mi.id where \(scope.condition))
            order by t.starts_on, c.code, t.code
            """).rows
        return try rows.map { row in
            let (campusID, campusCode, campusName, timeZone, code, name, firstDay, lastDay, breaksJSON, updated)
                = try row.decode((Int, String, String, String, String, String, String, String, String, Int64).self)
            let periods = try JSONDecoder().decode([NamedPeriod].self, from: Data(breaksJSON.utf8))
            let breaks = periods.compactMap { period in
                Self.localDateTime(period.startsOn).flatMap { first in
                    Self.localDateTime(period.endsOn).map { AcademicTerm.Break(name: period.name, firstDay: first, lastDay: $0) }
                }
            }
            guard let first = Self.localDateTime(firstDay), let last = Self.localDateTime(lastDay) else {
                throw PostgresError(kind: .decoding, message: "a term's dates are not YYYY-MM-DD")
            }
            return AcademicTerm(campusID: campusID, campusCode: campusCode, campusName: campusName, timeZone: timeZone,
                                code: code, name: name, firstDay: first, lastDay: last, breaks: breaks,
                                stamp: Date(timeIntervalSince1970: Double(updated)))
        }
    }

    /// Each group's weekly meetings (`MeetingSchedule`): one series per term of its campus, or from
    /// August 1 of the current academic year when the campus has no terms.
    private func groupEvents(_ scope: ExportScope, today: Date) throws -> [CalendarEvent] {
        let termsByCampus = Dictionary(grouping: try academicTerms(scope), by: \.campusID)
        let rows = try connection.query("""
            select g.code, g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location, c.timezone,
                   g.description, extract(epoch from g.updated_at)::bigint, mi.name, c.id,
                   to_char(g.first_meeting, 'YYYY-MM-DD'), to_char(g.last_meeting, 'YYYY-MM-DD')
            \(meetingGroups(scope))
            order by g.code
            """).rows
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: today)
        let academicYear = (components.month ?? 1) >= 8 ? components.year! : components.year! - 1
        let academicYearStart = CalendarEvent.LocalDateTime(year: academicYear, month: 8, day: 1)
        return try rows.flatMap { row -> [CalendarEvent] in
            let (code, name, dayName, time, location, timeZone, description, updated, ministry, campusID, firstMeeting,
                 lastMeeting) = try row.decode((String, String, String, String, String?, String, String?, Int64, String, Int,
                                                String?, String?).self)
            guard let day = Weekday(name: dayName),
                  let hour = Int(time.prefix(2)), let minute = Int(time.suffix(2)) else { return [] }
            let weekday = WeeklyRecurrence.Weekday.allCases[day.rawValue]
            let schedule = MeetingSchedule(weekday: weekday, hour: hour, minute: minute,
                                           firstMeeting: Self.localDateTime(firstMeeting),
                                           lastMeeting: Self.localDateTime(lastMeeting))
            let stamp = Date(timeIntervalSince1970: Double(updated))
            let terms = termsByCampus[campusID] ?? []
            return schedule.series(terms: terms, academicYearStart: academicYearStart).map { series in
                CalendarEvent(uid: "group-\(code)\(series.term.map { "+" + $0 } ?? "")@crubatch.cru.org",
                              summary: name, description: description,
                              location: location, start: series.first, end: .minutes(90), timeZone: timeZone,
                              recurrence: .weekly(WeeklyRecurrence(on: weekday, until: series.until)),
                              exceptions: series.exceptions, categories: ["Community Group", ministry],
                              dtstamp: stamp, lastModified: stamp)
            }
        }
    }

    /// The events of a scope, each as it was imported: timed or all-day, once or repeating with its
    /// exceptions, under its own UID (one read from an iCalendar file) or `event-CODE@crubatch.cru.org`.
    /// An event that iCalendar cannot hold (SQL past `import`'s checks: an end at or before the start)
    /// is left out, with why, so that one bad row never costs the calendar its other events.
    private func eventEvents(_ scope: ExportScope) throws -> (events: [CalendarEvent], leftOut: [LeftOutRow]) {
        let wallClock: SQLFragment = "'YYYY-MM-DD HH24:MI:SS'"
        let rows = try connection.query("""
            select ev.code, ev.name, to_char(ev.starts_at at time zone ev.timezone, \(unescaped: wallClock)),
                   to_char(ev.ends_at at time zone ev.timezone, \(unescaped: wallClock)), ev.timezone, ev.location,
                   ev.url, ev.description, extract(epoch from ev.updated_at)::bigint, ev.all_day, ev.recurrence, ev.uid,
                   (select string_agg(to_char(x at time zone ev.timezone, \(unescaped: wallClock)), ',' order by x)
                    from unnest(ev.exceptions) x)
            from events ev where \(eventFilter(scope)) order by ev.starts_at, ev.code
            """).rows
        var leftOut: [LeftOutRow] = []
        let events = try rows.compactMap { row -> CalendarEvent? in
            let (code, name, startsAt, endsAt, timeZone, location, url, description, updated, allDay, rule, uid, exceptionList)
                = try row.decode((String, String, String, String?, String, String?, String?, String?, Int64, Bool, String?,
                                  String?, String?).self)
            guard let start = Self.localDateTime(startsAt) else { return nil }
            let stamp = Date(timeIntervalSince1970: Double(updated))
            let recurrence = rule.map(CalendarEvent.Recurrence.rule)
            let storedEnd = Self.localDateTime(endsAt)
            let end: CalendarEvent.End
            if allDay {
                // An all-day event takes every day it touches, and at least its first.
                let endDay = storedEnd.map { $0 == $0.startOfDay ? $0 : $0.startOfDay.addingDays(1) } ?? start
                end = .at(max(endDay, start.startOfDay.addingDays(1)))
            } else {
                end = storedEnd.map(CalendarEvent.End.at) ?? .minutes(120)
            }
            let exceptions = recurrence == nil ? []
                : (exceptionList ?? "").split(separator: ",").compactMap { Self.localDateTime(String($0)) }
            let event = CalendarEvent(
                uid: uid ?? "event-\(code)@crubatch.cru.org",
                summary: name, description: description, location: location, url: url,
                start: allDay ? start.startOfDay : start, end: end, timeZone: timeZone,
                isAllDay: allDay, recurrence: recurrence, exceptions: exceptions, categories: ["Event"],
                dtstamp: stamp, lastModified: stamp)
            if let problem = ICalendarWriter.problem(with: event) {
                leftOut.append(LeftOutRow(kind: Kind.events.noun, code: code, reason: problem))
                return nil
            }
            return event
        }
        return (events, leftOut)
    }

    /// The academic calendar of a scope: for each term, all-day events for its first and last day of
    /// classes and one for each break.
    private func termEvents(_ scope: ExportScope) throws -> [CalendarEvent] {
        try academicTerms(scope).flatMap { term in
            func days(_ what: String, _ summary: String, from first: CalendarEvent.LocalDateTime,
                      through last: CalendarEvent.LocalDateTime) -> CalendarEvent {
                CalendarEvent(uid: "term-\(term.campusCode)+\(term.code)+\(what)@crubatch.cru.org", summary: "\(term.name): \(summary)",
                              location: term.campusName, start: first, end: .at(last.addingDays(1)), timeZone: term.timeZone,
                              isAllDay: true, categories: ["Academic Calendar"], dtstamp: term.stamp, lastModified: term.stamp)
            }
            return [days("first-day", "first day of classes", from: term.firstDay, through: term.firstDay)]
                + term.breaks.enumerated().map { index, pause in
                    days("break-\(index + 1)", pause.name, from: pause.firstDay, through: pause.lastDay)
                }
                + [days("last-day", "last day of classes", from: term.lastDay, through: term.lastDay)]
        }
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` as a wall-clock date-time (midnight for a date).
    private static func localDateTime(_ text: String?) -> CalendarEvent.LocalDateTime? {
        guard let text else { return nil }
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard numbers.count == 3 || numbers.count == 6 else { return nil }
        let time = numbers.count == 6 ? Array(numbers[3...]) : [0, 0, 0]
        return CalendarEvent.LocalDateTime(year: numbers[0], month: numbers[1], day: numbers[2], hour: time[0],
                                           minute: time[1], second: time[2])
    }
}

/// A calendar as JSON: `kind` "calendar", its name, and one object per event.
private struct CalendarDocument: Encodable {
    struct Event: Encodable {
        let uid: String
        let summary: String
        let description: String?
        let location: String?
        let url: String?
        /// `YYYY-MM-DDTHH:MM:SS` in `timeZone`; `YYYY-MM-DD` for an all-day event.
        let start: String
        /// For an all-day event, the day after the last one.
        let end: String?
        let durationMinutes: Int?
        let timeZone: String
        let allDay: Bool
        /// `MO` ... `SU` for a weekly meeting.
        let weeklyOn: String?
        /// The last moment a weekly meeting may start.
        let until: String?
        /// The RRULE of a repeating event read from another calendar.
        let rule: String?
        /// Occurrences left out (EXDATE), in the form of `start`.
        let exceptions: [String]

        init(_ event: CalendarEvent) {
            uid = event.uid
            summary = event.summary
            description = event.description
            location = event.location
            url = event.url
            allDay = event.isAllDay
            let format = { (time: CalendarEvent.LocalDateTime) in Self.iso(time, dateOnly: event.isAllDay) }
            start = format(event.start)
            switch event.end {
            case .at(let end): (self.end, durationMinutes) = (format(end), nil)
            case .duration(let seconds): (end, durationMinutes) = (nil, seconds / 60)
            }
            timeZone = event.timeZone
            switch event.recurrence {
            case .weekly(let weekly)?: (weeklyOn, until, rule) = (weekly.weekday.rawValue, weekly.until.map(format), nil)
            case .rule(let text)?: (weeklyOn, until, rule) = (nil, nil, text)
            case nil: (weeklyOn, until, rule) = (nil, nil, nil)
            }
            exceptions = event.exceptions.map(format)
        }

        private static func iso(_ time: CalendarEvent.LocalDateTime, dateOnly: Bool) -> String {
            let date = String(format: "%04d-%02d-%02d", time.year, time.month, time.day)
            return dateOnly ? date : date + String(format: "T%02d:%02d:%02d", time.hour, time.minute, time.second)
        }
    }

    let kind = "calendar"
    let name: String
    let events: [Event]
    /// The events a calendar cannot hold, left out.
    let leftOut: [LeftOutRow]
}

/// The time zones a calendar can be written in: tz database names (`TimeZoneNames`) that this
/// PostgreSQL server knows too (it converts the events' times). Asked once per exporter, when the
/// first calendar needs them.
final class CalendarTimeZones {
    private let connection: PostgresConnection
    private var known: Set<String>?

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    func contains(_ zone: String) throws -> Bool {
        let names = try known ?? Set(connection.query(
            "select name from pg_timezone_names where name = any(\(TimeZoneNames.all)::text[])").rows.map { try $0.decode(String.self, 0) })
        known = names
        return names.contains(zone)
    }
}
