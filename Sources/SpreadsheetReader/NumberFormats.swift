import CivilDays
import Foundation

/// How a number cell reads as text, decided by its style's number format: the same digits a
/// person sees in the sheet, never the float that stores them.
enum NumberFormat: Sendable, Equatable {
    /// Plain digits: `8055550203`, `3`, `12.5`.
    case general
    /// A date, a time or both, from the serial number of days.
    case date(hasDay: Bool, hasTime: Bool)
    /// A fixed number of digits with leading zeros (format `00000`: 123 reads `00123`).
    case zeroPadded(digits: Int)

    /// The format of a built-in number format id, or of a custom format code.
    init(id: Int, code: String?) {
        if let code {
            self.init(code: code)
            return
        }
        switch id {
        case 14...17, 27...31, 34...36, 50...58: self = .date(hasDay: true, hasTime: false)
        case 18...21, 32, 33, 45...47: self = .date(hasDay: false, hasTime: true)
        case 22: self = .date(hasDay: true, hasTime: true)
        default: self = .general
        }
    }

    /// Reads a format code's first section: date and time letters outside quotes, escapes and
    /// brackets (`[Red]`, `[$-409]`; `[h]` is elapsed time) make it a date.
    init(code: String) {
        let section = code.split(separator: ";", omittingEmptySubsequences: false).first.map(String.init) ?? code
        if section.count >= 2 && section.allSatisfy({ $0 == "0" }) {
            self = .zeroPadded(digits: section.count)
            return
        }
        var letters = ""
        var characters = section.lowercased().replacingOccurrences(of: "am/pm", with: "")
            .replacingOccurrences(of: "a/p", with: "").makeIterator()
        while let character = characters.next() {
            switch character {
            case "\"": while let inner = characters.next(), inner != "\"" {}
            case "\\", "_", "*": _ = characters.next()
            case "[":
                var inside = ""
                while let inner = characters.next(), inner != "]" { inside.append(inner) }
                if inside.allSatisfy({ "hms".contains($0) }) { letters += inside }
            default: letters.append(character)
            }
        }
        let hasDay = letters.contains { "yd".contains($0) }
        let hasTime = letters.contains { "hs".contains($0) }
        if hasDay || hasTime {
            self = .date(hasDay: hasDay, hasTime: hasTime)
        } else if letters.contains("m") {
            self = .date(hasDay: true, hasTime: false)
        } else {
            self = .general
        }
    }

    /// The text of a number cell's stored value (`<v>`).
    func text(of stored: String, dateSystem: DateSystem) -> String {
        guard let value = Double(stored), value.isFinite else { return stored }
        switch self {
        case .general:
            return Self.digits(value)
        case .zeroPadded(let digits):
            let plain = Self.digits(value)
            guard value >= 0, value == value.rounded(), plain.count < digits else { return plain }
            return String(repeating: "0", count: digits - plain.count) + plain
        case .date(let hasDay, let hasTime):
            // Excel shows ##### for a serial outside its dates; the digits let a date column say why.
            guard dateSystem.serials.contains(value) else { return Self.digits(value) }
            return dateSystem.text(ofSerial: value, day: hasDay, time: hasTime)
        }
    }

    /// A whole number as its digits (no `.0`, no exponent); any other number with at most the 15
    /// significant digits a spreadsheet keeps (`0.1 + 0.2` reads `0.3`).
    static func digits(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.15g", value)
    }
}

/// Which day serial number 0 stands for: workbooks made on old Macs count from 1904.
enum DateSystem: Sendable, Equatable {
    case from1900
    case from1904

    /// The serial numbers Excel shows as dates: up to 9999-12-31 (1,462 days fewer from 1904).
    var serials: Range<Double> { 0..<(self == .from1900 ? 2_958_466 : 2_957_004) }

    /// `2026-11-22`, `19:00`, `19:00:30` or `2026-11-22T19:00:00`, as the cell's format shows.
    /// A date format with a time of day in its value keeps the time.
    func text(ofSerial serial: Double, day: Bool, time: Bool) -> String {
        let (days, seconds) = CivilDay.day(ofSecond: Int((serial * 86_400).rounded()))
        let clock = Self.twoDigits(seconds / 3600) + ":" + Self.twoDigits(seconds / 60 % 60)
        let clockWithSeconds = clock + ":" + Self.twoDigits(seconds % 60)
        guard day else { return seconds % 60 == 0 ? clock : clockWithSeconds }
        let date = civilDate(serialDay: days)
        let dateText = "\(date.year)-\(Self.twoDigits(date.month))-\(Self.twoDigits(date.day))"
        return time || seconds != 0 ? dateText + "T" + clockWithSeconds : dateText
    }

    /// The calendar date of a day serial. In the 1900 system serial 1 is 1900-01-01 and, as in
    /// Lotus 1-2-3, serial 60 is a 29 February 1900 that never was, so from serial 61 on day 0 is
    /// 1899-12-30.
    private func civilDate(serialDay: Int) -> (year: Int, month: Int, day: Int) {
        switch self {
        case .from1900:
            return CivilDay.date(CivilDay.number(year: 1899, month: 12, day: serialDay >= 61 ? 30 : 31) + serialDay)
        case .from1904:
            return CivilDay.date(CivilDay.number(year: 1904, month: 1, day: 1) + serialDay)
        }
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// The number format of every cell style (`s="3"` on a cell is index 3 of `cellXfs`).
struct CellStyles: Sendable {
    private var formats: [NumberFormat] = []

    subscript(style: Int) -> NumberFormat {
        style >= 0 && style < formats.count ? formats[style] : .general
    }

    /// Reads `xl/styles.xml`: its custom `numFmts` and the `numFmtId` of each `cellXfs/xf`.
    static func read(_ data: Data?) -> (styles: CellStyles, xmlError: String?) {
        guard let data else { return (CellStyles(), nil) }
        var codes: [Int: String] = [:]
        var formatIDs: [Int] = []
        let error = ElementVisitor.walk(data) { name, attributes, ancestors in
            if name == "numFmt", let id = attributes["numFmtId"].flatMap(Int.init), let code = attributes["formatCode"] {
                codes[id] = code
            } else if name == "xf" && ancestors.last == "cellXfs" {
                formatIDs.append(attributes["numFmtId"].flatMap(Int.init) ?? 0)
            }
        }
        var styles = CellStyles()
        styles.formats = formatIDs.map { NumberFormat(id: $0, code: codes[$0]) }
        return (styles, error)
    }
}
