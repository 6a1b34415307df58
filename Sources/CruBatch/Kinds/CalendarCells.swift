import Foundation
import ICalendar

/// A named range of days, such as a term's break, as `terms.breaks` stores it (dates `YYYY-MM-DD`).
struct NamedPeriod: Codable, Equatable, Sendable {
    let name: String
    let startsOn: String
    let endsOn: String

    private enum CodingKeys: String, CodingKey {
        case name, startsOn = "starts_on", endsOn = "ends_on"
    }
}

extension CellNormalizer {
    /// `Thanksgiving 2026-11-23..2026-11-27; Winter 2026-12-12..2027-01-04`: each part is a name, then
    /// its first and last day (`..`, `to` or `–` between them; one date for a single day; dates as
    /// `DateTimeReader` reads them). Gives the JSON array `terms.breaks` stores, in date order.
    static func namedPeriods(_ text: String, dateOrder: DateOrder) throws(CellProblem) -> String {
        let hint = "write a name and its first and last day, like Thanksgiving 2026-11-23..2026-11-27; separate breaks with ;"
        func day(_ text: some StringProtocol) -> DateTimeReader.Day? { try? DateTimeReader.date(String(text), order: dateOrder) }
        var periods: [NamedPeriod] = []
        for part in text.split(separator: ";") {
            let words = part.split(whereSeparator: \.isWhitespace)
            if words.isEmpty { continue }
            let shown = part.trimmingCharacters(in: .whitespaces)
            guard let firstDate = words.firstIndex(where: { day($0.prefix { $0 != "." && $0 != "–" }) != nil }) else {
                throw CellProblem(code: .typeError, message: "\"\(shown)\" has no date", hint: hint)
            }
            let name = words[..<firstDate].joined(separator: " ")
            let dates = words[firstDate...].joined().replacingOccurrences(of: "–", with: "..")
                .replacingOccurrences(of: "to", with: "..").components(separatedBy: "..")
            let days = dates.compactMap(day)
            guard !name.isEmpty, (1...2).contains(dates.count), days.count == dates.count else {
                throw CellProblem(code: .typeError, message: "\"\(shown)\" is not a name with its days", hint: hint)
            }
            let (first, last) = (days[0].text, days[days.count - 1].text)
            guard first <= last else {
                throw CellProblem(code: .outOfRange, message: "\(name) ends (\(last)) before it starts (\(first))",
                                  hint: "write the first day, then the last")
            }
            periods.append(NamedPeriod(name: name, startsOn: first, endsOn: last))
        }
        periods.sort { ($0.startsOn, $0.endsOn, $0.name) < ($1.startsOn, $1.endsOn, $1.name) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings cannot fail.
        return String(decoding: (try? encoder.encode(periods)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// An iCalendar RRULE value (an `RRULE:` in front is dropped), kept as written once it is well formed.
    static func recurrenceRule(_ text: String) throws(CellProblem) -> String {
        let rule = text.uppercased().hasPrefix("RRULE:") ? String(text.dropFirst("RRULE:".count)) : text
        if let problem = RecurrenceRule.problem(in: rule) {
            throw CellProblem(code: .typeError, message: "\"\(rule)\" is not a recurrence rule: \(problem)",
                              hint: "write an iCalendar RRULE value such as FREQ=WEEKLY;BYDAY=TU;UNTIL=20261215")
        }
        return rule
    }
}
