/// A day of the week, Monday first (the order placement breaks ties in), with every spelling
/// crubatch reads: the day column of groups, availability answers, and stored meeting days.
public enum Weekday: Int, Sendable, Codable, CaseIterable, Comparable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// `Monday` ... `Sunday`, as `community_groups.meeting_day` stores it.
    public var name: String { Self.names[rawValue] }
    public var shortName: String { String(name.prefix(3)) }

    /// From `Monday`, `mon`, `Tues`, `Thursdays`, `weds`... (case-insensitive, a trailing `.` ignored).
    public init?(name: String) {
        var key = name.lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        guard let day = Self.spellings[key] else { return nil }
        self = day
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    static let weekdays: [Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
    static let weekend: [Weekday] = [.saturday, .sunday]

    static let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Lower-case spelling -> day: full names, abbreviations and plurals (`Mondays`).
    static let spellings: [String: Weekday] = {
        var words: [String: Weekday] = [:]
        let forms: [(Weekday, [String])] = [
            (.monday, ["monday", "mon"]), (.tuesday, ["tuesday", "tue", "tues"]),
            (.wednesday, ["wednesday", "wed", "weds"]), (.thursday, ["thursday", "thu", "thur", "thurs", "thr"]),
            (.friday, ["friday", "fri"]), (.saturday, ["saturday", "sat"]), (.sunday, ["sunday", "sun"]),
        ]
        for (day, names) in forms {
            for name in names { words[name] = day }
            words[names[0] + "s"] = day
        }
        return words
    }()
}
