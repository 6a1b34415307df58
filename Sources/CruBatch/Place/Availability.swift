import Foundation

/// One span of free time on one day: minutes after midnight, `end` exclusive (1440 = midnight).
public struct TimeWindow: Sendable, Hashable, Codable, CustomStringConvertible {
    public var day: Weekday
    public var start: Int
    public var end: Int

    public init(day: Weekday, start: Int, end: Int) {
        self.day = day
        self.start = start
        self.end = end
    }

    /// `Mon 17:00-22:00`.
    public var description: String { "\(day.shortName) \(Self.clock(start))-\(Self.clock(end))" }

    static func clock(_ minutes: Int) -> String {
        CellNormalizer.twoDigits(minutes / 60) + ":" + CellNormalizer.twoDigits(minutes % 60)
    }
}

/// Why a questionnaire's availability answer could not be read.
public struct AvailabilityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole answer as written.
    public let text: String
    /// The part that could not be read (one `;`/`,`-separated piece), or the whole answer.
    public let piece: String
    /// What was wrong with it.
    public let reason: String

    public var description: String {
        let part = piece == text ? "" : ": cannot read \"\(piece)\""
        return "availability \"\(text)\" is not days and times crubatch can read\(part) (\(reason))"
    }

    /// Examples of what is understood, for the diagnostic's hint.
    public static let hint = #"write days and times such as "Mon evening", "Tue 7-9pm", "Tuesday 7pm", "Thursday after 6", "MWF 3-5", "weekday evenings except Wed" or "anytime", separated by ; or ,"#
}

/// The weekly free time a student gave in the "Get Involved" questionnaire, as day/time windows.
///
/// Understood (case-insensitive), as pieces separated by `;` or `,`:
/// - days: every spelling of the day vocabulary (`Monday`, `Mondays`, `Mon`, `Tu`, `Weds`, `Th`, `R`,
///   `M`, `W`, `F` ...) and runs of day letters (`MWF`, `TTh`, `TR`, `MTWRF`); several joined by `/`,
///   `&`, `+`, `and` or `or` (`M/W`, `Monday and Wednesday`, `Mon or Wed`); ranges `Mon-Thu`,
///   `Monday through Thursday`; `weekdays`, `weekends`, `every day`/`daily`;
/// - days left out: `but`, `except`, `not`, `besides` followed by days (`any time but Friday`,
///   `weekday evenings except Wed`); without other days, the rest of the week;
/// - parts of the day: `morning(s)` 06:00-12:00, `afternoon(s)` 12:00-17:00, `evening(s)`/`night(s)`
///   17:00-22:00; `weeknights` (Mon-Fri evenings); `anytime`/`any time`/`all day`/`flexible` (the whole day);
/// - time ranges `7-9pm`, `6:30pm-9pm`, `11am-1pm`, `18:00-20:30`, `from 7 to 9pm`, `between 7 and 9pm`,
///   `noon-2pm` (a missing am/pm on the first time is the second's; a range past midnight continues the
///   next day);
/// - `after 6`, `after 7pm`, `after 6:30pm` (until midnight), `before 10am` (from midnight);
/// - a single time, when a meeting may start: `Tuesday 7pm` is 19:00 for the length of a meeting
///   (`Placer.meetingMinutes`).
/// A bare hour from 1 to 11 with no am/pm anywhere means pm (`after 6` is 18:00; `7-9` is 19:00-21:00);
/// 24-hour times (`18:30`, `19-21`) are read as written. A day with no time means the whole day; a time
/// with no day means every day. Two time phrases in one piece intersect (`Tue evening after 7`).
/// Any piece that is not one of these makes the whole answer unreadable: crubatch does not guess.
public struct Availability: Sendable, Equatable, CustomStringConvertible {
    /// Merged windows, sorted by day then start; touching windows are joined.
    public let windows: [TimeWindow]

    public init(windows: [TimeWindow]) {
        self.windows = Self.merged(windows)
    }

    /// Parses a questionnaire answer, or says which piece of it cannot be read.
    public static func parse(_ text: String) throws(AvailabilityError) -> Availability {
        try AvailabilityParser(text: text).parse()
    }

    /// Whether a meeting on `day` from `start` (minutes after midnight) for `minutes` lies wholly
    /// inside the free time (it may run past midnight into the next day's window).
    public func contains(day: Weekday, start: Int, minutes: Int) -> Bool {
        let begin = day.rawValue * 1440 + start, finish = begin + minutes
        return weekIntervals.contains { $0.lowerBound <= begin && finish <= $0.upperBound }
    }

    /// Whether `start` on `day` falls inside a window (the meeting starts while the student is free).
    public func containsStart(day: Weekday, start: Int) -> Bool {
        windows.contains { $0.day == day && $0.start <= start && start < $0.end }
    }

    /// `Mon 17:00-22:00; Wed 19:00-21:00`.
    public var description: String { windows.map(\.description).joined(separator: "; ") }

    /// The windows as minutes since Monday 00:00, over two weeks so that Sunday night runs on into
    /// Monday morning, joined where they touch (across midnight too).
    private var weekIntervals: [Range<Int>] {
        var result: [Range<Int>] = []
        for week in 0..<2 {
            for window in windows {
                let offset = week * 7 * 1440 + window.day.rawValue * 1440
                let range = (offset + window.start)..<(offset + window.end)
                if let last = result.last, last.upperBound >= range.lowerBound {
                    result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    result.append(range)
                }
            }
        }
        return result
    }

    private static func merged(_ windows: [TimeWindow]) -> [TimeWindow] {
        var result: [TimeWindow] = []
        for window in windows.sorted(by: { ($0.day, $0.start, $0.end) < ($1.day, $1.start, $1.end) })
        where window.end > window.start {
            if let last = result.last, last.day == window.day, last.end >= window.start {
                result[result.count - 1].end = max(last.end, window.end)
            } else {
                result.append(window)
            }
        }
        return result
    }
}

/// The reader behind `Availability.parse`: splits the answer into pieces, reads each as days plus
/// a time of day, and refuses anything it does not understand.
struct AvailabilityParser {
    let text: String

    static let morning = 6 * 60..<12 * 60
    static let afternoon = 12 * 60..<17 * 60
    static let evening = 17 * 60..<22 * 60
    static let wholeDay = 0..<24 * 60

    static let partsOfDay: [String: Range<Int>] = [
        "morning": morning, "mornings": morning, "afternoon": afternoon, "afternoons": afternoon,
        "evening": evening, "evenings": evening, "night": evening, "nights": evening,
        "anytime": wholeDay, "allday": wholeDay, "flexible": wholeDay,
    ]

    /// Words that only glue a phrase together.
    static let fillers: Set<String> = ["on", "every", "each", "from", "in", "the", "and", "or", "at"]

    /// Words after which the days named are left out.
    static let exclusions: Set<String> = ["but", "except", "not", "besides", "excluding"]

    // MARK: Pieces

    func parse() throws(AvailabilityError) -> Availability {
        let normalized = Self.normalize(text)
        guard !normalized.isEmpty else {
            throw AvailabilityError(text: text, piece: text, reason: "it is empty")
        }
        // Pieces with the separator that ended each (`,` lets a days-only piece share the next piece's time).
        var pieces: [(text: String, comma: Bool)] = []
        var current = ""
        for character in normalized {
            if character == ";" || character == "," || character == "\n" {
                pieces.append((current, character == ","))
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append((current, false))
        pieces = pieces.map { (CellNormalizer.trimmedNFC($0.text), $0.comma) }.filter { !$0.text.isEmpty }

        var windows: [TimeWindow] = []
        var pendingDays: [Weekday] = []
        for (index, piece) in pieces.enumerated() {
            var phrase = try read(piece.text)
            // "Monday, Wednesday and Friday evenings": bare days before a comma share the time that follows.
            if piece.comma, index + 1 < pieces.count, phrase.time == nil, phrase.defaultTime == Self.wholeDay,
               let days = phrase.days {
                pendingDays += days
                continue
            }
            if !pendingDays.isEmpty {
                if let days = phrase.days, phrase.time != nil {
                    phrase.days = days + pendingDays
                } else {
                    windows += Self.expand(days: pendingDays, time: [Self.wholeDay])
                }
                pendingDays = []
            }
            windows += Self.expand(days: phrase.days ?? Weekday.allCases, time: phrase.time ?? [phrase.defaultTime])
        }
        if !pendingDays.isEmpty { windows += Self.expand(days: pendingDays, time: [Self.wholeDay]) }
        return Availability(windows: windows)
    }

    /// `Character.isLetter`, without a Unicode property lookup for the ASCII letters nearly every answer holds.
    static func isLetter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return character.isLetter }
        return (ascii | 0x20) >= UInt8(ascii: "a") && (ascii | 0x20) <= UInt8(ascii: "z")
    }

    /// Lower case, one kind of dash, `a.m.` as `am`.
    static func normalize(_ text: String) -> String {
        var lower = CellNormalizer.trimmedNFC(text).lowercased()
        // Most answers hold none of these: no search for them then.
        guard lower.utf8.contains(where: { $0 == 0xE2 || $0 == 0xC2 || $0 == 0x09 || $0 == UInt8(ascii: ".") }) else {
            return lower
        }
        for (from, to) in [("\u{2013}", "-"), ("\u{2014}", "-"), ("\u{2012}", "-"), ("\u{2212}", "-"), ("a.m.", "am"),
                           ("p.m.", "pm"), ("\u{00A0}", " "), ("\t", " ")] {
            lower = lower.replacingOccurrences(of: from, with: to)
        }
        return lower
    }

    static func expand(days: [Weekday], time: [Range<Int>]) -> [TimeWindow] {
        var windows: [TimeWindow] = []
        for day in days {
            for span in time {
                if span.upperBound <= 1440 {
                    windows.append(TimeWindow(day: day, start: span.lowerBound, end: span.upperBound))
                } else {
                    // Past midnight: the rest belongs to the next day.
                    windows.append(TimeWindow(day: day, start: span.lowerBound, end: 1440))
                    let next = Weekday(rawValue: (day.rawValue + 1) % 7)!
                    windows.append(TimeWindow(day: next, start: 0, end: span.upperBound - 1440))
                }
            }
        }
        return windows
    }

    // MARK: One piece

    /// What one piece says: which days (nil: not said) and which time of day (nil: not said).
    struct Phrase {
        var days: [Weekday]?
        /// Days left out (`but Friday`).
        var excluded: [Weekday] = []
        var time: [Range<Int>]?
        /// The time when none is given: the whole day, or evenings for `weeknights`.
        var defaultTime = AvailabilityParser.wholeDay
    }

    enum Meridiem: Equatable { case am, pm }

    /// A clock time as written: `7`, `6:30`, `7pm`, `18:00`.
    struct Clock: Equatable {
        var hour: Int
        var minute: Int
        var meridiem: Meridiem?
        /// Written as 24-hour time (`18:00`, `07:30`, `19`): no am/pm needed.
        var twentyFourHour: Bool

        var isBare: Bool { meridiem == nil && !twentyFourHour }

        /// Minutes after midnight with the given meridiem (nil: as written, bare hours pm).
        func minutes(as meridiem: Meridiem? = nil) -> Int? {
            if twentyFourHour { return hour * 60 + minute }
            switch meridiem ?? self.meridiem ?? .pm {
            case .am: return (hour % 12) * 60 + minute
            case .pm: return (hour % 12 + 12) * 60 + minute
            }
        }
    }

    enum Token: Equatable {
        case word(String)
        case clock(Clock)
        case dash, slash, ampersand
    }

    func fail(_ piece: String, _ reason: String) -> AvailabilityError {
        let whole = Self.normalize(text) == piece
        return AvailabilityError(text: text, piece: whole ? text : piece, reason: reason)
    }

    func read(_ piece: String) throws(AvailabilityError) -> Phrase {
        var reader = PhraseReader(parser: self, piece: piece, tokens: try tokenize(piece))
        while reader.index < reader.tokens.count { try reader.step() }
        return try reader.finish()
    }

    /// Reads one piece's tokens into a phrase, a day or time expression at a time.
    private struct PhraseReader {
        let parser: AvailabilityParser
        let piece: String
        let tokens: [Token]
        var index = 0
        var phrase = Phrase()
        /// After `but`: the days named are left out.
        var excluding = false

        func fail(_ reason: String) -> AvailabilityError { parser.fail(piece, reason) }

        /// Reads the expression at `index` and moves past it.
        mutating func step() throws(AvailabilityError) {
            let token = tokens[index]
            if excluding, !AvailabilityParser.isDayToken(token) {
                let word = AvailabilityParser.exclusionWord(in: tokens) ?? "except"
                throw fail("only days may follow \"\(word)\" (e.g. any time but Friday)")
            }
            if readDays(token) { return }
            if try readTime(token) { return }
            switch token {
            case .word(let word) where AvailabilityParser.fillers.contains(word):
                index += 1
            case .slash, .ampersand:
                index += 1
            case .dash:
                throw fail("a dash must join two days (mon-thu) or two times (7-9pm)")
            case .word(let word):
                throw fail("\"\(word)\" is not a day or a time of day")
            case .clock:
                preconditionFailure("readTime reads every clock")
            }
        }

        /// `but` (the days after it are left out), a day, a run of days (`mwf`), a day range
        /// ("mon-thu", "monday through thursday", "mon to fri"), `weekdays`, `weekends`, `weeknights`
        /// (evenings unless a time is given) or `daily`. False when the token is none of them.
        private mutating func readDays(_ token: Token) -> Bool {
            guard case .word(let word) = token else { return false }
            var days: [Weekday], length = 1
            if AvailabilityParser.exclusions.contains(word) {
                excluding = true
                days = []
            } else if Weekday.spellings[word] == nil, let run = Weekday.run(word) {
                days = run
            } else if let first = Weekday.spellings[word] {
                days = [first]
                if index + 2 < tokens.count, AvailabilityParser.isRangeJoiner(tokens[index + 1]),
                   case .word(let other) = tokens[index + 2], let last = Weekday.spellings[other] {
                    days = AvailabilityParser.dayRange(first, last)
                    length = 3
                }
            } else if word == "weekday" || word == "weekdays" {
                days = Weekday.weekdays
            } else if word == "weekend" || word == "weekends" {
                days = Weekday.weekend
            } else if word == "weeknight" || word == "weeknights" {
                days = Weekday.weekdays
                phrase.defaultTime = AvailabilityParser.evening
            } else if ["alldays", "daily", "everyday"].contains(word) {
                days = Weekday.allCases
            } else {
                return false
            }
            addDays(days)
            index += length
            return true
        }

        /// A part of the day, `after 6`, `before 9am`, `between 7 and 9pm`, a range `7-9pm` or a single
        /// time (a meeting may start then). False when the token starts none of them.
        private mutating func readTime(_ token: Token) throws(AvailabilityError) -> Bool {
            switch token {
            case .word(let word) where AvailabilityParser.partsOfDay[word] != nil:
                try addTime(AvailabilityParser.partsOfDay[word]!)
                index += 1
            case .word("after"), .word("before"):
                guard index + 1 < tokens.count, case .clock(let clock) = tokens[index + 1],
                      let minutes = clock.minutes() else {
                    throw fail("\"\(token.text)\" needs a time after it, e.g. after 6pm")
                }
                try addTime(token == .word("after") ? minutes..<1440 : 0..<minutes)
                index += 2
            case .word("between"):
                guard index + 3 < tokens.count, case .clock(let from) = tokens[index + 1],
                      tokens[index + 2] == .word("and"), case .clock(let to) = tokens[index + 3] else {
                    throw fail("write \"between 7 and 9pm\"")
                }
                try addTime(try parser.range(from, to, piece: piece))
                index += 4
            case .clock(let from):
                if index + 2 < tokens.count, AvailabilityParser.isRangeJoiner(tokens[index + 1]),
                   case .clock(let to) = tokens[index + 2] {
                    try addTime(try parser.range(from, to, piece: piece))
                    index += 3
                } else if index + 1 < tokens.count, AvailabilityParser.isRangeJoiner(tokens[index + 1]) {
                    throw fail("\"\(from.text)-\" needs a time after the dash, e.g. 7-9pm")
                } else {
                    // A single time: a meeting may start then.
                    let start = from.minutes()!
                    try addTime(start..<(start + Placer.meetingMinutes))
                    index += 1
                }
            default:
                return false
            }
            return true
        }

        private mutating func addDays(_ days: [Weekday]) {
            if excluding {
                phrase.excluded += days
            } else {
                phrase.days = (phrase.days ?? []) + days.filter { !(phrase.days ?? []).contains($0) }
            }
        }

        private mutating func addTime(_ span: Range<Int>) throws(AvailabilityError) {
            guard let existing = phrase.time else {
                phrase.time = [span]
                return
            }
            // Two time phrases in one piece: the student is free when both hold.
            let both = existing.compactMap { current -> Range<Int>? in
                let low = max(current.lowerBound, span.lowerBound), high = min(current.upperBound, span.upperBound)
                return low < high ? low..<high : nil
            }
            guard !both.isEmpty else { throw fail("its times do not overlap") }
            phrase.time = both
        }

        /// The phrase once every token is read: it names something, and leaves out only days it names.
        func finish() throws(AvailabilityError) -> Phrase {
            var phrase = phrase
            if excluding && phrase.excluded.isEmpty { throw fail("it says which days are left out, but names none") }
            guard phrase.days != nil || phrase.time != nil || !phrase.excluded.isEmpty else {
                throw fail("it names no day or time")
            }
            if !phrase.excluded.isEmpty {
                phrase.days = (phrase.days ?? Weekday.allCases).filter { !phrase.excluded.contains($0) }
                guard !phrase.days!.isEmpty else { throw fail("it leaves out every day it names") }
            }
            return phrase
        }
    }

    /// A day, a run of days or a word naming days, which is all that may follow `except`.
    static func isDayToken(_ token: Token) -> Bool {
        switch token {
        case .word(let word):
            Weekday.spellings[word] != nil || Weekday.run(word) != nil || fillers.contains(word) || exclusions.contains(word)
                || ["weekday", "weekdays", "weekend", "weekends"].contains(word)
        case .slash, .ampersand, .dash: true
        case .clock: false
        }
    }

    static func exclusionWord(in tokens: [Token]) -> String? {
        for case .word(let word) in tokens where exclusions.contains(word) { return word }
        return nil
    }

    static func isRangeJoiner(_ token: Token) -> Bool {
        switch token {
        case .dash, .word("to"), .word("through"), .word("thru"), .word("until"), .word("till"), .word("til"): true
        default: false
        }
    }

    static func dayRange(_ first: Weekday, _ last: Weekday) -> [Weekday] {
        var days = [first]
        var day = first
        while day != last {
            day = Weekday(rawValue: (day.rawValue + 1) % 7)!
            days.append(day)
        }
        return days
    }

    /// A range of two clock times: a missing am/pm on the first is the second's (or the other one
    /// when that would put the start after the end: `11-1pm`); a range that ends before it starts
    /// runs past midnight.
    func range(_ from: Clock, _ to: Clock, piece: String) throws(AvailabilityError) -> Range<Int> {
        var end = to.minutes()!
        var start: Int
        if from.isBare && !to.twentyFourHour {
            let inherited = to.meridiem ?? .pm
            start = from.minutes(as: inherited)!
            if start >= end, inherited == .pm, let morning = from.minutes(as: .am), morning < end { start = morning }
        } else {
            start = from.minutes()!
        }
        if to.isBare && (from.meridiem != nil) {
            // "7pm-9": the end takes the start's am/pm, or the next one after the start.
            end = to.minutes(as: from.meridiem)!
            if end <= start { end = to.minutes(as: from.meridiem == .am ? .pm : .am)! }
        }
        if end == 0 { end = 1440 }
        if end <= start { end += 1440 }
        guard end - start < 1440 else { throw fail(piece, "the range \(from.text)-\(to.text) is empty") }
        return start..<end
    }

    // MARK: Tokens

    func tokenize(_ piece: String) throws(AvailabilityError) -> [Token] {
        var scanner = PieceScanner(characters: Array(piece))
        while let character = scanner.current {
            if character == " " || character == "." {
                scanner.index += 1
            } else if Self.isLetter(character) {
                try add(word: scanner.word(), to: &scanner.tokens, piece: piece)
            } else if character.isASCII && character.isNumber {
                scanner.tokens.append(.clock(try clock(scanner.number(), piece: piece)))
            } else if let symbol = Token(symbol: character) {
                scanner.tokens.append(symbol)
                scanner.index += 1
            } else {
                throw fail(piece, "\"\(character)\" is not part of a day or time")
            }
        }
        // A meridiem must follow a clock ("7 pm"); one that does not is an unknown word.
        for token in scanner.tokens {
            if case .clock(let clock) = token, clock.meridiem != nil, !(1...12).contains(clock.hour) {
                throw fail(piece, "\(clock.text) is not a time of day")
            }
        }
        return scanner.tokens
    }

    /// A piece's characters, read into tokens from `index`.
    private struct PieceScanner {
        let characters: [Character]
        var index = 0
        var tokens: [Token] = []

        var current: Character? { index < characters.count ? characters[index] : nil }

        /// The letters (and apostrophes) from here, without a final `'s` ("Monday's").
        mutating func word() -> String {
            var word = ""
            while index < characters.count, AvailabilityParser.isLetter(characters[index]) || characters[index] == "'" {
                word.append(characters[index])
                index += 1
            }
            if word.hasSuffix("'s") { word.removeLast(2) }
            return word
        }

        /// The digits from here, and the two after a `:` or `.` that follows them (the minutes).
        mutating func number() -> (digits: String, minutes: String?) {
            var digits = ""
            while index < characters.count, characters[index].isASCII, characters[index].isNumber {
                digits.append(characters[index])
                index += 1
            }
            guard index < characters.count, characters[index] == ":" || characters[index] == "." else {
                return (digits, nil)
            }
            let rest = characters[(index + 1)...].prefix { $0.isASCII && $0.isNumber }
            guard rest.count == 2 else { return (digits, nil) }
            index += 3
            return (digits, String(rest))
        }
    }

    /// Adds a word: `noon` and `midnight` as clocks, `am` or `pm` as the meridiem of the clock before
    /// it, and "any time", "all day", "every day", "any day" as one word with the word before.
    private func add(word: String, to tokens: inout [Token], piece: String) throws(AvailabilityError) {
        if word == "noon" || word == "midnight" {
            let meridiem: Meridiem = word == "noon" ? .pm : .am
            tokens.append(.clock(Clock(hour: 12, minute: 0, meridiem: meridiem, twentyFourHour: false)))
        } else if word == "am" || word == "pm" || word == "a" || word == "p",
                  case .clock(var clock) = tokens.last, clock.meridiem == nil {
            guard !clock.twentyFourHour || clock.hour <= 12 else {
                throw fail(piece, "\(clock.text) is a 24-hour time; drop the \(word)")
            }
            clock.meridiem = word.hasPrefix("a") ? .am : .pm
            clock.twentyFourHour = false
            tokens[tokens.count - 1] = .clock(clock)
        } else if case .word(let previous) = tokens.last, let joined = Self.joined(previous, word) {
            tokens[tokens.count - 1] = .word(joined)
        } else {
            tokens.append(.word(word))
        }
    }

    /// The one word two words make ("any time" is `anytime`), if they make one.
    private static func joined(_ first: String, _ second: String) -> String? {
        switch first + " " + second {
        case "any time", "all day": "anytime"
        case "every day", "any day", "all days", "every days": "alldays"
        default: nil
        }
    }

    /// The clock that digits (and minutes) write: `7`, `6:30`, `18`, `07.30`.
    private func clock(_ number: (digits: String, minutes: String?), piece: String) throws(AvailabilityError) -> Clock {
        let digits = number.digits
        guard digits.count <= 2, let hour = Int(digits), let minute = Int(number.minutes ?? "0"), minute < 60 else {
            throw fail(piece, "\"\(digits)\(number.minutes.map { ":" + $0 } ?? "")\" is not a time of day")
        }
        guard hour <= 24, hour < 24 || minute == 0 else {
            throw fail(piece, "\"\(digits)\" is not an hour of the day")
        }
        return Clock(hour: hour, minute: minute, meridiem: nil,
                     twentyFourHour: hour == 0 || hour > 12 || (digits.count == 2 && digits.hasPrefix("0")))
    }
}

extension AvailabilityParser.Token {
    /// A sign that joins days or times: `-`, `/`, `&` or `+`.
    init?(symbol: Character) {
        switch symbol {
        case "-": self = .dash
        case "/": self = .slash
        case "&", "+": self = .ampersand
        default: return nil
        }
    }

    var text: String {
        switch self {
        case .word(let word): word
        case .clock(let clock): clock.text
        case .dash: "-"
        case .slash: "/"
        case .ampersand: "&"
        }
    }
}

extension AvailabilityParser.Clock {
    var text: String {
        let base = minute == 0 && !twentyFourHour ? "\(hour)" : "\(hour):\(CellNormalizer.twoDigits(minute))"
        switch meridiem {
        case .am: return base + "am"
        case .pm: return base + "pm"
        case nil: return base
        }
    }
}
