/// Checks on an RRULE value (`FREQ=WEEKLY;BYDAY=TU;UNTIL=20261216T075959Z`) that is kept as text:
/// read from one calendar and written unchanged into another, so it must be well formed but is
/// never expanded here.
public enum RecurrenceRule {
    static let frequencies: Set<String> = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]

    /// Why `rule` is not a well-formed RRULE value, or nil when it is: `NAME=VALUE` parts joined by
    /// `;`, exactly one FREQ with a known frequency, not both UNTIL and COUNT, an UNTIL that is a
    /// date or a date-time, and no control character.
    public static func problem(in rule: String) -> String? {
        if rule.unicodeScalars.contains(where: ICalFormat.isControl) { return "it holds a control character" }
        var names = Set<String>()
        for part in rule.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex,
                  part.index(after: equals) != part.endIndex else {
                return "\"\(part)\" is not NAME=VALUE"
            }
            let name = part[..<equals].uppercased(), value = part[part.index(after: equals)...]
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                return "\"\(name)\" is not a rule part name"
            }
            guard names.insert(name).inserted else { return "\(name) is given twice" }
            switch name {
            case "FREQ" where !frequencies.contains(value.uppercased()):
                return "FREQ=\(value) is not one of \(frequencies.sorted().joined(separator: ", "))"
            case "UNTIL" where CalendarValueParser.time(String(value), timeZone: nil) == nil:
                return "UNTIL=\(value) is not a date or a date-time"
            default:
                break
            }
        }
        if !names.contains("FREQ") { return "FREQ is missing" }
        if names.contains("UNTIL") && names.contains("COUNT") { return "UNTIL and COUNT cannot both be given" }
        return nil
    }

    /// The year of the rule's UNTIL, if it has one.
    static func untilYear(_ rule: String) -> Int? {
        rule.split(separator: ";").first { $0.uppercased().hasPrefix("UNTIL=") }
            .flatMap { Int($0.dropFirst("UNTIL=".count).prefix(4)) }
    }
}
