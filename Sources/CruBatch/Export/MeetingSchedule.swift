import Foundation
import ICalendar

/// One term of a campus's academic calendar, as calendars use it: its days of classes and its breaks.
struct AcademicTerm: Sendable {
    /// A named range of days off inside the term.
    struct Break: Sendable, Equatable {
        let name: String
        let firstDay: CalendarEvent.LocalDateTime
        let lastDay: CalendarEvent.LocalDateTime

        func contains(_ day: CalendarEvent.LocalDateTime) -> Bool { (firstDay...lastDay).contains(day.startOfDay) }
    }

    let campusID: Int
    let campusCode: String
    let campusName: String
    let timeZone: String
    let code: String
    let name: String
    let firstDay: CalendarEvent.LocalDateTime
    let lastDay: CalendarEvent.LocalDateTime
    let breaks: [Break]
    /// When the term last changed (DTSTAMP of its events).
    let stamp: Date
}

/// A weekly series of one group's meetings: from its first meeting to its last (UNTIL), leaving out
/// the meetings that fall in a break (EXDATE).
struct MeetingSeries: Equatable {
    /// The term it belongs to; nil for a campus without terms.
    let term: String?
    let first: CalendarEvent.LocalDateTime
    /// The last moment a meeting may start (the end of the last meeting's day); nil: without end.
    let until: CalendarEvent.LocalDateTime?
    let exceptions: [CalendarEvent.LocalDateTime]
}

/// When a group meets: weekly on its day and time, only inside its campus's terms and never on a
/// break day, one series per term; never before its own first meeting or after its last. A campus
/// without terms keeps the weekly meeting from the first one of the academic year (August 1), or
/// from the group's first meeting, until its last meeting if it has one.
struct MeetingSchedule {
    let weekday: WeeklyRecurrence.Weekday
    let hour: Int
    let minute: Int
    /// The group's own first and last meeting days (`first_meeting`, `last_meeting`).
    let firstMeeting: CalendarEvent.LocalDateTime?
    let lastMeeting: CalendarEvent.LocalDateTime?

    func series(terms: [AcademicTerm], academicYearStart: CalendarEvent.LocalDateTime) -> [MeetingSeries] {
        guard !terms.isEmpty else {
            let first = meeting(onOrAfter: firstMeeting ?? academicYearStart)
            if let lastMeeting, first.startOfDay > lastMeeting { return [] }
            return [MeetingSeries(term: nil, first: first, until: lastMeeting.map(endOfDay), exceptions: [])]
        }
        return terms.compactMap { term in
            let opening = max(term.firstDay, firstMeeting ?? term.firstDay)
            let closing = min(term.lastDay, lastMeeting ?? term.lastDay)
            let meetings = Array(sequence(first: meeting(onOrAfter: opening)) { $0.addingDays(7) }.prefix { $0.startOfDay <= closing })
            let free = meetings.filter { meeting in !term.breaks.contains { $0.contains(meeting) } }
            guard let first = free.first, let last = free.last else { return nil }
            let skipped = meetings.filter { $0 > first && $0 < last && !free.contains($0) }
            return MeetingSeries(term: term.code, first: first, until: endOfDay(last), exceptions: skipped)
        }
    }

    private func meeting(onOrAfter day: CalendarEvent.LocalDateTime) -> CalendarEvent.LocalDateTime {
        day.at(hour: hour, minute: minute).nextOrSame(weekday)
    }

    private func endOfDay(_ day: CalendarEvent.LocalDateTime) -> CalendarEvent.LocalDateTime {
        day.at(hour: 23, minute: 59, second: 59)
    }
}
