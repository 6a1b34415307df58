import FileOutput
import ICalendar
import Foundation
import PostgresClient

extension Exporter {
    /// Community groups (one weekly VEVENT each, in their campus's time zone) and events of a scope
    /// as an RFC 5545 calendar. Output is deterministic: DTSTAMP is each row's `updated_at`.
    /// Throws `UnexportableData`, before anything is written, when a time zone or an event of the
    /// scope cannot be written as iCalendar.
    public func exportCalendar(_ scope: ExportScope, to target: OutputTarget, today: Date = Date()) throws -> ExportedFile {
        let events = try calendarEvents(scope, today: today)
        let year = Calendar(identifier: .gregorian).component(.year, from: today)
        let writer = ICalendarWriter(name: "Cru \(scope == .everything ? "Central Coast" : scope.label)", years: (year - 1)...(year + 2))
        let calendar: [UInt8]
        do {
            calendar = try writer.render(events)
        } catch let error as CalendarError {
            throw UnexportableData("the calendar of \(scope.label) cannot be written: \(error)")
        }
        let sink = try ExportSink(target)
        try sink.write(calendar)
        return try sink.finish(rows: events.count)
    }

    /// The same events as one JSON document, for scripts: wall-clock times in each event's zone.
    public func exportCalendarJSON(_ scope: ExportScope, to target: OutputTarget, today: Date = Date()) throws -> ExportedFile {
        let events = try calendarEvents(scope, today: today)
        let document = CalendarDocument(events: events.map(CalendarDocument.Event.init))
        let sink = try ExportSink(target)
        try sink.write(Array((ReportDocument.json(document, command: "export") + "\n").utf8))
        return try sink.finish(rows: events.count)
    }

    /// The groups' weekly meetings and the events of a scope, once its time zones are checked.
    private func calendarEvents(_ scope: ExportScope, today: Date) throws -> [CalendarEvent] {
        try requireCalendarTimeZones(scope)
        return try groupEvents(scope, today: today) + eventEvents(scope)
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
            let zone = try row.decode(String.self, 2)
            if try !calendarTimeZones.contains(zone) {
                problems.append("\(try row.decode(String.self, 0)) \(String(reflecting: try row.decode(String.self, 1))) has time zone \(String(reflecting: zone))")
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
        where \(scope.condition) and g.meeting_day is not null and g.meeting_time is not null
        """
    }

    /// The events of a scope, over `ev`: all of them, or those of a ministry in the scope.
    private func eventFilter(_ scope: ExportScope) -> PostgresQuery {
        scope == .everything ? "true" : """
            exists (select 1 from event_ministries em join ministries mi on mi.id = em.ministry_id
                    join campuses c on c.id = mi.campus_id
                    left join community_groups g on g.ministry_id = mi.id
                    where em.event_id = ev.id and \(scope.condition))
            """
    }

    /// The first meeting of each group: its weekday on or after August 1 of the current academic year.
    private func groupEvents(_ scope: ExportScope, today: Date) throws -> [CalendarEvent] {
        let rows = try connection.query("""
            select g.code, g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location, c.timezone,
                   g.description, extract(epoch from g.updated_at)::bigint, mi.name
            \(meetingGroups(scope))
            order by g.code
            """).rows
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: today)
        let academicYear = (components.month ?? 1) >= 8 ? components.year! : components.year! - 1
        return try rows.compactMap { row -> CalendarEvent? in
            let time = try row.decode(String.self, 3)
            guard let day = Weekday(name: try row.decode(String.self, 2)),
                  let hour = Int(time.prefix(2)), let minute = Int(time.suffix(2)) else { return nil }
            let weekday = WeeklyRecurrence.Weekday.allCases[day.rawValue]
            let start = CalendarEvent.LocalDateTime(year: academicYear, month: 8, day: 1, hour: hour, minute: minute)
                .nextOrSame(weekday)
            let stamp = Date(timeIntervalSince1970: Double(try row.decode(Int64.self, 7)))
            return CalendarEvent(uid: "group-\(try row.decode(String.self, 0))@crubatch.cru.org",
                                 summary: try row.decode(String.self, 1), description: try row.decode(String?.self, 6),
                                 location: try row.decode(String?.self, 4), start: start, end: .minutes(90),
                                 timeZone: try row.decode(String.self, 5), recurrence: .weekly(WeeklyRecurrence(on: weekday)),
                                 categories: ["Community Group", try row.decode(String.self, 8)],
                                 dtstamp: stamp, lastModified: stamp)
        }
    }

    private func eventEvents(_ scope: ExportScope) throws -> [CalendarEvent] {
        let rows = try connection.query("""
            select ev.code, ev.name, to_char(ev.starts_at at time zone ev.timezone, 'YYYY-MM-DD HH24:MI:SS'),
                   to_char(ev.ends_at at time zone ev.timezone, 'YYYY-MM-DD HH24:MI:SS'), ev.timezone, ev.location,
                   ev.url, ev.description, extract(epoch from ev.updated_at)::bigint
            from events ev where \(eventFilter(scope)) order by ev.starts_at, ev.code
            """).rows
        return try rows.compactMap { row -> CalendarEvent? in
            guard let start = Self.localDateTime(try row.decode(String.self, 2)) else { return nil }
            let stamp = Date(timeIntervalSince1970: Double(try row.decode(Int64.self, 8)))
            return CalendarEvent(uid: "event-\(try row.decode(String.self, 0))@crubatch.cru.org",
                                 summary: try row.decode(String.self, 1), description: try row.decode(String?.self, 7),
                                 location: try row.decode(String?.self, 5), url: try row.decode(String?.self, 6), start: start,
                                 end: Self.localDateTime(try row.decode(String?.self, 3)).map(CalendarEvent.End.at) ?? .minutes(120),
                                 timeZone: try row.decode(String.self, 4), categories: ["Event"], dtstamp: stamp, lastModified: stamp)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` as a wall-clock date-time.
    private static func localDateTime(_ text: String?) -> CalendarEvent.LocalDateTime? {
        guard let text else { return nil }
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        return CalendarEvent.LocalDateTime(year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3],
                                           minute: numbers[4], second: numbers[5])
    }
}

/// A calendar as JSON: `kind` "calendar" and one object per event.
private struct CalendarDocument: Encodable {
    struct Event: Encodable {
        let uid: String
        let summary: String
        let description: String?
        let location: String?
        let url: String?
        /// `YYYY-MM-DDTHH:MM:SS` in `timeZone`.
        let start: String
        let end: String?
        let durationMinutes: Int?
        let timeZone: String
        /// `MO` ... `SU` for a weekly meeting.
        let weeklyOn: String?

        init(_ event: CalendarEvent) {
            uid = event.uid
            summary = event.summary
            description = event.description
            location = event.location
            url = event.url
            start = Self.iso(event.start)
            switch event.end {
            case .at(let end): (self.end, durationMinutes) = (Self.iso(end), nil)
            case .duration(let seconds): (end, durationMinutes) = (nil, seconds / 60)
            }
            timeZone = event.timeZone
            if case .weekly(let weekly)? = event.recurrence { weeklyOn = weekly.weekday.rawValue } else { weeklyOn = nil }
        }

        private static func iso(_ time: CalendarEvent.LocalDateTime) -> String {
            String(format: "%04d-%02d-%02dT%02d:%02d:%02d", time.year, time.month, time.day, time.hour, time.minute, time.second)
        }
    }

    let kind = "calendar"
    let events: [Event]
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
