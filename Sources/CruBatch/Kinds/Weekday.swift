/// A day of the week, Monday first (the order placement breaks ties in), with every spelling
/// crubatch reads: the day column of groups, availability answers, and stored meeting days.
public enum Weekday: Int, Sendable, Codable, CaseIterable, Comparable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// `Monday` ... `Sunday`, as `community_groups.meeting_day` stores it.
    public var name: String { Self.names[rawValue] }
    public var shortName: String { String(name.prefix(3)) }

    /// From any spelling of the day vocabulary: `Monday`, `mon`, `Tues`, `Thursdays`, `Weds.`, `Th`, `R`...
    public init?(name: String) {
        guard let day = Self.spellings[Vocabulary.key(name)] else { return nil }
        self = day
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    static let weekdays: [Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
    static let weekend: [Weekday] = [.saturday, .sunday]

    static let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Lookup key (`Vocabulary.key`) -> day, from the day vocabulary.
    static let spellings: [String: Weekday] = {
        var days: [String: Weekday] = [:]
        for term in Vocabulary.day.terms {
            guard let value = term.value, let index = names.firstIndex(of: value) else { continue }
            for spelling in term.spellings { days[Vocabulary.key(spelling)] = Weekday(rawValue: index) }
        }
        return days
    }()

    /// The letters of a run of days written together, as timetables do (`MWF`, `TTh`, `TR`, `MTWRF`):
    /// `M`, `T`/`Tu`, `W`, `Th`/`R`, `F`, `Sa`, `Su`.
    private static let runLetters: [(String, Weekday)] = [
        ("th", .thursday), ("tu", .tuesday), ("sa", .saturday), ("su", .sunday),
        ("m", .monday), ("t", .tuesday), ("w", .wednesday), ("r", .thursday), ("f", .friday),
    ]

    /// The days of a run such as `mwf` or `tth` (lower case): at least two, each later in the week
    /// than the one before; nil for any other word.
    static func run(_ word: String) -> [Weekday]? {
        var days: [Weekday] = []
        var rest = Substring(word)
        while !rest.isEmpty {
            guard let (letters, day) = runLetters.first(where: { rest.hasPrefix($0.0) }),
                  days.last.map({ $0 < day }) ?? true else { return nil }
            days.append(day)
            rest = rest.dropFirst(letters.count)
        }
        return days.count >= 2 ? days : nil
    }
}
