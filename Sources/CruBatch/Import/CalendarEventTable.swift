import CSVStream
import FileOutput
import Foundation
import ICalendar
import PostgresClient

/// Whose events an iCalendar file holds, which no property of the file says: `import events FILE.ics
/// --campus C` or `--ministry M`.
public enum EventOwner: Sendable, Equatable {
    case campus(String)
    case ministry(String)
}

/// An owner as the database knows it: the ministries its events belong to, and the time zone of
/// times the file gives without one.
struct CalendarOwner {
    let ministries: [String]
    let timeZone: String

    /// Looks the owner up; a usage error when it does not exist.
    static func resolve(_ owner: EventOwner, connection: PostgresConnection) throws -> CalendarOwner {
        let (condition, noun, code): (PostgresQuery, String, String) = switch owner {
        case .campus(let code): ("c.code = \(code.lowercased())", "campus", code)
        case .ministry(let code): ("mi.code = \(code.lowercased())", "ministry", code)
        }
        let rows = try connection.query("""
            select c.timezone, coalesce(string_agg(mi.code, ';' order by mi.code), '')
            from campuses c left join ministries mi on mi.campus_id = c.id where \(condition) group by c.id, c.timezone
            """).rows
        guard let row = rows.first else {
            throw CruBatchError.usage("no \(noun) \(code): check the code (see `crubatch export \(noun == "campus" ? "campuses" : "ministries")`)")
        }
        return CalendarOwner(ministries: try row.decode(String.self, 1).split(separator: ";").map(String.init),
                             timeZone: try row.decode(String.self, 0))
    }
}

/// The events of an iCalendar file (Google Calendar, Outlook, Apple Calendar, a feed) as rows of
/// the events kind, so they meet the same checks and merge as a CSV file's rows.
///
/// - The code is derived from the UID (`CalendarEventTable.code(forUID:)`), so importing the file
///   again updates the same events; the UID itself is kept and written back on export. A UID of the
///   form crubatch writes (`event-CODE@crubatch.cru.org`) is that event's code. An event without a
///   UID (Microsoft CDO's invitations) is given a code made from its start and title, with a warning.
/// - Times become wall-clock times in the event's zone: its TZID, else the zone crubatch wrote beside
///   an all-day event's dates, else the file's X-WR-TIMEZONE, else the owner's campus's zone, else
///   America/Los_Angeles. An all-day event keeps its dates. An all-day event without an end lasts one
///   day; a timed one has no end (the calendar's default length), since an event must end after it
///   starts.
/// - The RRULE is kept as written. EXDATEs, and the occurrences that other VEVENTs of the same UID
///   cancel or move (RECURRENCE-ID), become the event's exceptions; a moved occurrence is an event
///   of its own, under its UID and original start (`UID/20261020T190000`). The exceptions of an
///   all-day event are dates in the event's own terms: the date each is written with, whatever zone
///   it is written in (Exchange writes them as midnight in its own zone).
/// - A cancelled event (STATUS:CANCELLED) is not a row: its code is in `cancelledCodes`, for the
///   loader to archive the stored event. The meetings and term dates of a calendar crubatch wrote
///   are not imported either (they come from groups and terms).
/// - Line breaks in a one-line value (an Apple location's name and address) become ", ".
///
/// Diagnostics name the physical line of the property they concern. A line that is no content line,
/// and a property left out, are warnings (`skipped-line`): the rest of the event is imported.
final class CalendarEventTable: TableReader {
    let displayName: String
    /// An iCalendar file has no sheets.
    let sheet: String? = nil
    let header: [String]
    let totalBytes: Int
    let sha256Hex: String?
    /// The whole file is read when the table opens.
    var bytesRead: Int { totalBytes }
    /// The codes of the events the file cancels.
    private(set) var cancelledCodes: [String] = []
    private var rows: [TableRow] = []
    private var nextIndex = 0
    /// Warnings about the file and its events: skipped lines, codes made for events without a UID,
    /// values read by assumption.
    private var warnings: [Diagnostic] = []
    /// Where each cell of a row (by the row's line) came from: the property and its line.
    private var origins: [Int: [String: (property: String, line: Int)]] = [:]

    /// The domain of the UIDs crubatch writes for events, `event-CODE@crubatch.cru.org`.
    private static let ownUIDSuffix = "@crubatch.cru.org"

    /// Reads and maps the whole file. Throws `FileOpenError`, or a `malformed-calendar` diagnostic
    /// when the file's structure is broken.
    init(path: String, displayName: String, owner: CalendarOwner?) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileManager.default.fileExists(atPath: path) ? FileOpenError.unreadable(path: path, reason: "cannot read it")
                : FileOpenError.notFound(path: path)
        }
        let bytes = Array(data)
        self.displayName = displayName
        totalBytes = bytes.count
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        sha256Hex = hasher.finalizeHex()
        header = ["code", "uid", "name", "starts_at", "ends_at", "timezone", "all_day", "location", "url", "description",
                  "recurrence", "exceptions"] + (owner == nil ? [] : ["ministries"])
        guard ICalendarReader.looksLikeICalendar(bytes) else {
            throw Diagnostic(file: displayName, line: 1, code: .malformedCalendar,
                             message: "the file is named .ics but does not start with BEGIN:VCALENDAR: "
                                 + "it is not an iCalendar file",
                             hint: "export the calendar again from Google Calendar, Outlook or Apple Calendar")
        }
        let file: ICalendarFile
        do {
            file = try ICalendarFile(bytes: bytes)
        } catch {
            throw Diagnostic(file: displayName, line: error.line, code: .malformedCalendar, message: error.message,
                             hint: "export the calendar again; if that does not help, fix this line in a text editor")
        }
        warnings = file.unreadableLines.map(skipped)
        let zone = file.timeZone ?? owner?.timeZone ?? "America/Los_Angeles"
        let series = Dictionary(file.events.filter { $0.recurrenceID == nil }.compactMap { event in
            event.uid.map { ($0.value, event) }
        }) { first, _ in first }
        // Occurrences of a series that other VEVENTs cancel or move.
        var replaced: [String: [Located<CalendarTime>]] = [:]
        for event in file.events {
            if let uid = event.uid?.value, let recurrenceID = event.recurrenceID, series[uid] != nil {
                replaced[uid, default: []].append(recurrenceID)
            }
        }
        for event in file.events {
            warnings += event.unreadableLines.map(skipped)
            let derivedCode = event.uid == nil ? Self.derivedCode(for: event) : nil
            let uid = event.uid?.value ?? "event-\(derivedCode ?? "")\(Self.ownUIDSuffix)"
            if let derivedCode {
                warnings.append(Diagnostic(
                    file: displayName, line: event.line, code: .assumedValue,
                    message: "the event has no UID: it is imported as event \(derivedCode), a code made from its DTSTART "
                        + "and SUMMARY, so that importing the file again finds it",
                    hint: "if its start or title changes in the calendar it is imported as another event; "
                        + "a UID given in the calendar prevents that"))
            }
            if Self.isMeetingOrTerm(uid) { continue }
            if let recurrenceID = event.recurrenceID {
                if series[uid]?.isCancelled == true || event.isCancelled { continue }
                add(event, uid: uid + "/" + recurrenceID.value.text, exceptions: [], zone: zone, owner: owner)
            } else if !event.isCancelled {
                add(event, uid: uid, exceptions: replaced[uid] ?? [], zone: zone, owner: owner)
            } else {
                cancelledCodes.append(Self.code(forUID: uid))
            }
        }
    }

    func next() throws(Diagnostic) -> TableRow? {
        guard nextIndex < rows.count else { return nil }
        defer { nextIndex += 1 }
        return rows[nextIndex]
    }

    func takeWarnings() -> [Diagnostic] {
        defer { warnings.removeAll() }
        return warnings
    }

    func locate(_ diagnostic: Diagnostic) -> Diagnostic {
        var located = diagnostic
        located.column = nil
        guard let field = diagnostic.field, let origin = origins[diagnostic.line]?[field] else { return located }
        located.line = origin.line
        if diagnostic.code == .missingValue {
            located.message = "\(origin.property) is missing"
            located.hint = "give the event a \(origin.property) in its calendar and export it again"
        } else if diagnostic.message.hasPrefix(field + ":") {
            located.message = origin.property + diagnostic.message.dropFirst(field.count)
        }
        return located
    }

    /// The code of the event with this UID: the code itself for a UID crubatch wrote, else the UID
    /// made a code (lower case, other characters as `-`, at most 54 characters) and the first 8
    /// hex digits of its SHA-256, so that two UIDs never share a code.
    static func code(forUID uid: String) -> String {
        if let own = ownCode(uid) { return own }
        let hasher = SHA256Hasher()
        hasher.update(Array(uid.utf8))
        let prefix = CodeRule.slug(uid, length: CodeRule.maximumLength - 9)
        return prefix + (prefix.isEmpty ? "ics-" : "-")
            + hasher.finalizeHex().prefix(8)
    }

    /// The code of an event that has no UID (`no-uid-` and 16 hex digits): made from its start as
    /// written and its title, which tell it from the others of its calendar, so that importing the file
    /// again finds it. Its UID is then the one crubatch writes for that code.
    static func derivedCode(for event: ICalendarFile.Event) -> String {
        let hasher = SHA256Hasher()
        hasher.update(Array("\(event.start?.value.text ?? "")|\(event.summary?.value ?? "")".utf8))
        return "no-uid-" + hasher.finalizeHex().prefix(16)
    }

    /// Whether a UID is one crubatch gives a group's meetings or a term's dates: such an event comes
    /// from groups and terms, and is not imported as an event.
    private static func isMeetingOrTerm(_ uid: String) -> Bool {
        uid.hasSuffix(ownUIDSuffix) && (uid.hasPrefix("group-") || uid.hasPrefix("term-"))
    }

    /// CODE of `event-CODE@crubatch.cru.org`.
    private static func ownCode(_ uid: String) -> String? {
        guard uid.hasPrefix("event-"), uid.hasSuffix(ownUIDSuffix) else { return nil }
        let code = String(uid.dropFirst("event-".count).dropLast(ownUIDSuffix.count))
        return CodeRule.accepts(code) ? code : nil
    }

    /// The warning about a line that holds no content line.
    private func skipped(_ line: ICalendarSyntaxError) -> Diagnostic {
        Diagnostic(file: displayName, line: line.line, code: .skippedLine,
                   message: "\(line.message): the line is skipped, with the lines folded onto it, and the rest of the calendar is read",
                   hint: "a folded line that lost its leading space: export the calendar again, "
                       + "or put one space in front of this line")
    }

    /// Adds the row of one event.
    private func add(_ event: ICalendarFile.Event, uid: String, exceptions replaced: [Located<CalendarTime>], zone: String,
                     owner: CalendarOwner?) {
        var cells: [String: String] = [:]
        var origin: [String: (property: String, line: Int)] = [:]
        var problems: [Diagnostic] = []
        func set(_ column: String, _ value: String?, from property: String, line: Int?) {
            cells[column] = value
            origin[column] = (property, line ?? event.line)
        }
        func problem(_ column: String, _ code: DiagnosticCode, line: Int, _ message: String, hint: String? = nil) {
            problems.append(Diagnostic(file: displayName, line: line, field: column, code: code, message: message, hint: hint))
        }
        let uidLine = event.uid?.line
        set("code", Self.code(forUID: uid), from: "UID", line: uidLine)
        set("uid", Self.ownCode(uid) == nil ? uid : nil, from: "UID", line: uidLine)

        // Times, in the zone of the start.
        var eventZone = event.timeZone?.value ?? zone
        if case .zoned(_, let own)? = event.start?.value { eventZone = own }
        let isAllDay = event.start?.value.isDate ?? false
        let localStart = event.start?.value.wallClock(in: eventZone)
        /// A time of the event in its zone: for an all-day event the date as written, whatever its zone;
        /// a date of a timed event (an EXDATE) at the start's time of day.
        func wallClock(_ time: CalendarTime) -> String? {
            if isAllDay { return Self.text(time.written.startOfDay) }
            guard var local = time.wallClock(in: eventZone) else { return nil }
            if time.isDate, let start = localStart {
                local = local.at(hour: start.hour, minute: start.minute, second: start.second)
            }
            return Self.text(local)
        }
        let startLine = event.start?.line
        set("starts_at", event.start.flatMap { wallClock($0.value) }, from: "DTSTART", line: startLine)
        set("timezone", eventZone, from: "DTSTART", line: startLine)
        set("all_day", isAllDay ? "yes" : "no", from: "DTSTART", line: startLine)
        // Without DTEND or DURATION a timed event is a moment, which the events kind does not hold:
        // it is stored without an end, as a CSV row that gives none.
        let end = event.end ?? event.start.flatMap { start in
            guard case .date(let day) = start.value else { return nil }
            return Located(value: CalendarTime.date(day.addingDays(1)), line: start.line)
        }
        set("ends_at", end.flatMap { wallClock($0.value) }, from: event.end == nil ? "DTSTART" : "DTEND", line: end?.line)

        set("name", event.summary.map { Self.oneLine($0.value) }, from: "SUMMARY", line: event.summary?.line)
        set("location", event.location.map { Self.oneLine($0.value) }, from: "LOCATION", line: event.location?.line)
        set("url", event.url?.value, from: "URL", line: event.url?.line)
        set("description", event.description?.value, from: "DESCRIPTION", line: event.description?.line)
        set("recurrence", event.rule?.value, from: "RRULE", line: event.rule?.line)
        let skipped = event.exceptions + replaced
        set("exceptions", skipped.isEmpty ? nil : Set(skipped.compactMap { wallClock($0.value) }).sorted().joined(separator: ";"),
            from: event.exceptions.isEmpty ? "RECURRENCE-ID" : "EXDATE", line: skipped.first?.line)
        if let owner { set("ministries", owner.ministries.joined(separator: ";"), from: "--campus or --ministry", line: event.line) }

        for unreadable in event.problems {
            let message = "\(unreadable.property): \(unreadable.message)"
            switch unreadable.kind {
            case .leftOut:
                warnings.append(Diagnostic(file: displayName, line: unreadable.line, code: .skippedLine, message: message))
            case .assumed:
                warnings.append(Diagnostic(file: displayName, line: unreadable.line, code: .assumedValue, message: message,
                                           hint: "name a tz database zone (such as Europe/Berlin) in the calendar"))
            case .unreadable, .unknownTimeZone:
                let column = ["DTSTART": "starts_at", "DTEND": "ends_at", "DURATION": "ends_at", "RRULE": "recurrence",
                              "EXDATE": "exceptions"][unreadable.property] ?? "code"
                problem(column, unreadable.kind == .unknownTimeZone ? .invalidChoice : .typeError, line: unreadable.line,
                        message)
            }
        }
        let row = header.map { cells[$0] ?? "" }
        rows.append(TableRow(line: event.line, cells: row, originalCells: row, problems: problems))
        origins[event.line] = origin
    }

    /// `YYYY-MM-DDTHH:MM:SS`, as the events kind reads a local date-time.
    private static func text(_ time: CalendarEvent.LocalDateTime) -> String {
        String(format: "%04d-%02d-%02dT%02d:%02d:%02d", time.year, time.month, time.day, time.hour, time.minute, time.second)
    }

    /// Line breaks (CRLF, LF, CR) as ", ".
    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
