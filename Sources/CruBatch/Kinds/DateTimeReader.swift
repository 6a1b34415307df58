/// How the first two numbers of a slash date are read (`import --date-order`).
public enum DateOrder: String, Sendable, CaseIterable {
    /// Month first, as US spreadsheets write dates (`9/15/2026`); the default.
    case mdy
    /// Day first (`15/9/2026`). A date whose first two numbers could both be a month (`3/4/2026`) is
    /// refused: a sheet written day first may still hold month-first dates, and only ISO is sure.
    case dmy
}

/// The one reader of every date and date-time column (events, missions, memberships, resources):
///
/// - ISO 8601: `2026-09-15`, `2026-09-15T19:00`, `2026-09-15 19:00:00`, with an optional `Z` or
///   `±HH:MM` offset;
/// - spreadsheet dates: `9/15/2026` (or `15/9/2026` with `DateOrder.dmy`), with or without a time
///   `19:00`, `7:00 PM`, `7:00:00 PM` or `7pm`.
///
/// A date alone in a date-time column is midnight; a time without offset is wall-clock time in the
/// row's time zone, which the import's SQL applies. Years are written in full.
enum DateTimeReader {
    /// A calendar date.
    struct Day: Equatable {
        let year: Int
        let month: Int
        let day: Int

        /// `2026-09-15`.
        var text: String { "\(year)-\(CellNormalizer.twoDigits(month))-\(CellNormalizer.twoDigits(day))" }
    }

    /// A date cell, stored as `YYYY-MM-DD`. A spreadsheet's midnight time after it (`9/15/2026 0:00:00`) is allowed.
    static func date(_ text: String, order: DateOrder) throws(CellProblem) -> Day {
        let (datePart, timePart) = split(text)
        let day = try self.day(datePart, whole: text, order: order)
        if let timePart {
            guard let clock = CellNormalizer.parseClock(timePart), clock == (0, 0, 0) else {
                throw CellProblem(code: .typeError, message: "\"\(text)\" is a date and time, not a date",
                                  hint: "write the date alone, like \(day.text)")
            }
        }
        return day
    }

    /// A date-time cell, stored as `YYYY-MM-DDTHH:MM:SS` plus the offset if one was written.
    static func dateTime(_ text: String, order: DateOrder) throws(CellProblem) -> String {
        let (datePart, timePart) = split(text)
        let day = try self.day(datePart, whole: text, order: order)
        guard var clockText = timePart else { return day.text + "T00:00:00" }
        var offset = ""
        if clockText.hasSuffix("Z") || clockText.hasSuffix("z") {
            offset = "Z"
            clockText.removeLast()
        } else if let sign = clockText.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let digits = clockText[clockText.index(after: sign)...].replacingOccurrences(of: ":", with: "")
            guard digits.count == 4 || digits.count == 2, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(digits) else { throw notADateTime(text) }
            let hours = digits.count == 4 ? value / 100 : value, minutes = digits.count == 4 ? value % 100 : 0
            guard hours <= 14, minutes < 60 else { throw notADateTime(text) }
            offset = String(clockText[sign]) + CellNormalizer.twoDigits(hours) + ":" + CellNormalizer.twoDigits(minutes)
            clockText = String(clockText[..<sign])
        }
        guard let (hour, minute, second) = CellNormalizer.parseClock(clockText.trimmingCharacters(in: .whitespaces)) else {
            throw notADateTime(text)
        }
        let clock = [hour, minute, second].map(CellNormalizer.twoDigits).joined(separator: ":")
        return "\(day.text)T\(clock)\(offset)"
    }

    private static func notADateTime(_ text: String) -> CellProblem {
        CellProblem(code: .typeError, message: "\"\(text)\" is not a date and time",
                    hint: "write it like 2026-10-02 19:00, 10/2/2026 7:00 PM or 2026-10-02T19:00:00-07:00")
    }

    /// The date and, if any, the time: split at the `T` of ISO 8601 or at the first space.
    private static func split(_ text: String) -> (date: Substring, time: String?) {
        let iso = text.count > 10 && text.prefix(4).allSatisfy { $0.isASCII && $0.isNumber }
            && text[text.index(text.startIndex, offsetBy: 10)] == "T"
        guard let separator = iso ? text.index(text.startIndex, offsetBy: 10) : text.firstIndex(of: " ") else {
            return (Substring(text), nil)
        }
        let time = text[text.index(after: separator)...].trimmingCharacters(in: .whitespaces)
        return (text[..<separator], time.isEmpty ? nil : time)
    }

    /// `2026-09-15`, `2026/09/15`, or a slash date in `order`.
    private static func day(_ part: Substring, whole: String, order: DateOrder) throws(CellProblem) -> Day {
        let unreadable = CellProblem(code: .typeError, message: "\"\(whole)\" is not a date",
                                     hint: "write it like 2026-09-15 or 9/15/2026")
        let numbers = part.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "/" }
        guard numbers.count == 3, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let first = Int(numbers[0]), let second = Int(numbers[1]), let third = Int(numbers[2]) else {
            throw unreadable
        }
        if numbers[0].count == 4 {
            return try checked(Day(year: first, month: second, day: third), whole: whole)
        }
        guard !part.contains("-"), numbers[0].count <= 2, numbers[1].count <= 2 else { throw unreadable }
        guard numbers[2].count == 4 else {
            throw CellProblem(code: .typeError, message: "\"\(whole)\" has a two-digit year",
                              hint: "write the year in full, like 9/15/2026")
        }
        switch order {
        case .mdy:
            if first > 12 && second <= 12 {
                let iso = Day(year: third, month: second, day: first).text
                throw CellProblem(code: .typeError, message: "\"\(whole)\" is not a month/day/year date",
                                  hint: "it looks like day/month/year: run with --date-order dmy, or write \(iso)")
            }
            return try checked(Day(year: third, month: first, day: second), whole: whole)
        case .dmy:
            if first <= 12 && second <= 12 && first != second {
                throw CellProblem(code: .typeError,
                                  message: "\"\(whole)\" could be day/month or month/day",
                                  hint: "with --date-order dmy, write such dates as YYYY-MM-DD "
                                      + "(\(Day(year: third, month: second, day: first).text) if the day comes first)")
            }
            if second > 12 && first <= 12 {
                throw CellProblem(code: .typeError, message: "\"\(whole)\" is not a day/month/year date",
                                  hint: "it looks like month/day/year: run without --date-order dmy, or write "
                                      + Day(year: third, month: first, day: second).text)
            }
            return try checked(Day(year: third, month: second, day: first), whole: whole)
        }
    }

    private static func checked(_ day: Day, whole: String) throws(CellProblem) -> Day {
        let leap = day.year % 4 == 0 && (day.year % 100 != 0 || day.year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1900...2200).contains(day.year), (1...12).contains(day.month),
              (1...monthDays[day.month - 1]).contains(day.day) else {
            throw CellProblem(code: .typeError, message: "\"\(whole)\" is not a date", hint: "write it like 2026-09-15 or 9/15/2026")
        }
        return day
    }
}
