/// Reads one VEVENT into an `ICalendarFile.Event`: each property it uses typed with its line, the
/// others ignored. A value that cannot be read is a problem of its property (`EventProblem`), never
/// of the file: a text in an encoding a text cannot have is left out, a time or a rule that cannot be
/// read is an error of the event. A time whose TZID's VTIMEZONE matches no tz database zone is read
/// by that VTIMEZONE's rules as an instant, with a warning; a repeating event cannot be kept so.
struct VEventReader {
    let zones: TimeZoneResolver

    /// The property crubatch writes on an all-day event, whose dates carry no zone: the zone they
    /// belong to, so that a calendar read back gives the event its zone again.
    static let allDayZoneProperty = "X-CRUBATCH-TIMEZONE"

    /// The unreadable lines of a component and of every component in it.
    static func unreadableLines(in component: CalendarComponent) -> [ICalendarSyntaxError] {
        component.unreadableLines + component.components.flatMap(unreadableLines(in:))
    }

    func event(_ component: CalendarComponent) -> ICalendarFile.Event {
        var event = ICalendarFile.Event(line: component.line)
        event.unreadableLines = Self.unreadableLines(in: component)
        var duration: Located<(days: Int, seconds: Int)>?
        /// The first TZID read by its VTIMEZONE's rules rather than as a zone, with its line.
        var ruleZone: (tzid: String, property: ContentLine)?
        func located<Value>(_ property: ContentLine, _ value: Value) -> Located<Value> {
            Located(value: value, line: property.line)
        }
        func problem(_ property: ContentLine, _ message: String, _ kind: EventProblem.Kind = .unreadable) {
            event.problems.append(
                EventProblem(line: property.line, property: property.name, message: message, kind: kind))
        }
        func text(_ property: ContentLine) -> Located<String>? {
            guard let value = CalendarValueParser.text(of: property) else {
                problem(
                    property,
                    "ENCODING=\(property.parameter("ENCODING") ?? "") is not a text encoding: "
                        + "\(property.name) is left out", .leftOut)
                return nil
            }
            return located(property, value)
        }
        func time(_ property: ContentLine, value: String? = nil) -> CalendarTime? {
            let text = value ?? property.value
            var zone: String?
            var rules: VTimeZoneRules?
            if let tzid = property.parameter("TZID"), !text.hasSuffix("Z") {
                switch zones.resolve(tzid) {
                case .success(.zone(let name)): zone = name
                case .success(.rules(let definition)):
                    rules = definition
                    if ruleZone == nil { ruleZone = (tzid, property) }
                case .failure(let unknown):
                    problem(property, unknown.message, .unknownTimeZone)
                    return nil
                }
            }
            let wantsDate = property.parameter("VALUE")?.uppercased() == "DATE"
            guard let parsed = CalendarValueParser.time(text, timeZone: zone), !wantsDate || parsed.isDate else {
                problem(
                    property,
                    "\(String(reflecting: text)) is not a \(wantsDate ? "date (YYYYMMDD)" : "date-time (YYYYMMDDTHHMMSS)")"
                )
                return nil
            }
            if let rules, case .floating(let local) = parsed {
                return .offset(local, seconds: Int(CalendarCivil.seconds(local) - rules.instant(of: local)))
            }
            return parsed
        }
        for property in component.properties {
            switch property.name {
            case "UID" where event.uid == nil: event.uid = text(property)
            case "SUMMARY" where event.summary == nil: event.summary = text(property)
            case "DESCRIPTION" where event.description == nil: event.description = text(property)
            case "LOCATION" where event.location == nil: event.location = text(property)
            case "URL" where event.url == nil: event.url = located(property, property.value)
            case "STATUS" where event.status == nil: event.status = property.value.uppercased()
            case "DTSTART" where event.start == nil: event.start = time(property).map { located(property, $0) }
            case "DTEND" where event.end == nil: event.end = time(property).map { located(property, $0) }
            case "RECURRENCE-ID" where event.recurrenceID == nil:
                event.recurrenceID = time(property).map { located(property, $0) }
            case Self.allDayZoneProperty where event.timeZone == nil:
                if let zone = zones.zone(named: property.value) {
                    event.timeZone = located(property, zone)
                } else {
                    problem(
                        property, "\(String(reflecting: property.value)) is not a time zone: it is left out", .leftOut)
                }
            case "DURATION" where duration == nil:
                if let parsed = CalendarValueParser.duration(property.value) {
                    duration = located(property, parsed)
                } else {
                    problem(
                        property, "\(String(reflecting: property.value)) is not a duration (such as PT1H30M or P1D)")
                }
            case "RRULE" where event.rule == nil:
                if let reason = RecurrenceRule.problem(in: property.value) {
                    problem(property, "\(String(reflecting: property.value)) is not a recurrence rule: \(reason)")
                } else {
                    event.rule = located(property, property.value)
                }
            case "EXDATE":
                for value in property.value.split(separator: ",") {
                    if let exception = time(property, value: String(value)) {
                        event.exceptions.append(located(property, exception))
                    }
                }
            default:
                break
            }
        }
        if event.end == nil, let duration, let start = event.start {
            event.end = Located(
                value: start.value.adding(days: duration.value.days, seconds: duration.value.seconds),
                line: duration.line)
        }
        if let (tzid, property) = ruleZone {
            let zone =
                "TZID \(String(reflecting: tzid)) names no zone, and the rules of its VTIMEZONE match no tz database zone"
            if event.rule != nil {
                problem(
                    property,
                    zone + ": a repeating event needs a zone to keep its times across daylight saving changes",
                    .unknownTimeZone)
            } else {
                problem(property, zone + ": its times are read by those rules, as instants", .assumed)
            }
        }
        return event
    }
}
