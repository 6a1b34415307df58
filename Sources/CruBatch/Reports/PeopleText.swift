/// Stored values as people write them, for rosters and messages people read: phones in national
/// format, school years by name, a group's meeting in words.
enum PeopleText {
    /// A stored E.164 phone as people write it: US numbers in national format (`(805) 555-0203`,
    /// `(805) 555-0203 ext. 12`), others as stored (`+44...`); empty when there is none.
    static func phone(_ stored: String?) -> String {
        guard let stored else { return "" }
        let parts = stored.split(separator: ";", maxSplits: 1)
        let number = parts.first.map(String.init) ?? stored
        let extensionText = parts.count > 1 && parts[1].hasPrefix("ext=") ? " ext. " + parts[1].dropFirst(4) : ""
        let digits = Array(number.dropFirst(2))
        guard number.hasPrefix("+1"), digits.count == 10, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
            return stored
        }
        return "(\(String(digits[0..<3]))) \(String(digits[3..<6]))-\(String(digits[6...]))" + extensionText
    }

    /// 1 freshman ... 5 fifth year / graduate; nil for a year not known.
    static func schoolYear(_ year: Int?) -> String? {
        year.flatMap { yearNames[$0] }
    }

    private static let yearNames = [1: "freshman", 2: "sophomore", 3: "junior", 4: "senior", 5: "fifth year / graduate"]

    /// `Tuesdays at 19:00, Dexter Lawn`, with whatever parts are known; empty when none is.
    static func meeting(day: String?, time: String?, location: String?) -> String {
        let when = [day.map { $0 + "s" }, time.map { "at " + $0 }].compactMap { $0 }.joined(separator: " ")
        return [when, location ?? ""].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
