import CSVStream
import Foundation

/// Why a cell's text is not a valid value of its column: the code, a message and maybe a hint.
struct CellProblem: Error, Equatable {
    let code: DiagnosticCode
    let message: String
    var hint: String?
}

/// Turns a cell's text into the canonical value its column stores (the README's "CSV formats"), or says
/// what is wrong. Empty cells give nil; the caller decides whether that is a missing value.
enum CellNormalizer {
    static func normalize(_ raw: String, as type: CellType) throws(CellProblem) -> String? {
        let text = trimmedNFC(raw)
        if text.isEmpty { return nil }
        try refuseControlCharacters(text, multiline: type == .multilineText)
        switch type {
        case .text, .multilineText: return text
        case .code: return try code(text)
        case .email: return try email(text)
        case .phone: return try phone(text)
        case .url: return try url(text)
        case .day: return try day(text)
        case .time: return try time(text)
        case .bool: return try bool(text)
        case .personSex: return try personSex(text)
        case .groupSex: return try choice(text, groupSexes, accepted: "men, women, mixed")
        case .audience: return try choice(text, audiences, accepted: "freshmen, sophomores, juniors, seniors, graduates, faculty, mixed")
        case .schoolYear: return try schoolYear(text)
        case .gradYear: return try integer(text, in: 1950...2100, what: "a graduation year")
        case .positiveInt: return try integer(text, in: 1...1_000_000, what: "a whole number greater than 0")
        case .money: return try money(text)
        case .date: return try date(text)
        case .dateTime: return try dateTime(text)
        case .timezone: return text
        case .choice(let values):
            let lower = text.lowercased()
            guard values.contains(lower) else {
                throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not one of \(values.joined(separator: ", "))",
                                  hint: Suggestion.closest(to: lower, among: values).map { "did you mean \"\($0)\"?" })
            }
            return lower
        case .list(let element):
            var values: [String] = []
            for part in text.utf8.split(separator: UInt8(ascii: ";")) {
                if let value = try normalize(String(Substring(part)), as: element), !values.contains(value) {
                    values.append(value)
                }
            }
            return values.isEmpty ? nil : values.joined(separator: ";")
        }
    }

    /// Trims white space and puts the text in Unicode NFC. Plain ASCII, nearly every cell, takes a
    /// byte-level path without Foundation; a cell that needs no change is returned as it is.
    static func trimmedNFC(_ raw: String) -> String {
        var text = raw
        return text.withUTF8 { bytes -> String in
            var ascii = true
            var first = -1, last = -1
            for (index, byte) in bytes.enumerated() {
                if byte >= 0x80 { ascii = false }
                if !isASCIISpace(byte) {
                    if first < 0 { first = index }
                    last = index
                }
            }
            guard ascii else {
                return raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            }
            if first < 0 { return "" }
            if first == 0 && last == bytes.count - 1 { return raw }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[first...last]), as: UTF8.self)
        }
    }

    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// ASCII lower case of a string that is known to be ASCII; the same string when already lower.
    private static func asciiLowercased(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { bytes in
            guard bytes.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
            return String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
    }

    private static func isASCII(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in !bytes.contains { $0 >= 0x80 } }
    }

    private static func code(_ text: String) throws(CellProblem) -> String {
        var lower = isASCII(text) ? asciiLowercased(text) : text.lowercased()
        let allowed = lower.withUTF8 { bytes in
            bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
        }
        guard allowed else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a code: use letters, digits and - only",
                              hint: "e.g. \(lower.replacingOccurrences(of: " ", with: "-").filter { $0.isASCII })")
        }
        return lower
    }

    private static let phonePunctuation = Set(" ()-.+/".utf8)

    private static func email(_ text: String) throws(CellProblem) -> String {
        var lower = isASCII(text) ? asciiLowercased(text) : text.lowercased()
        let valid = lower.withUTF8 { bytes -> Bool in
            var at = -1
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "@"):
                    if at >= 0 { return false }
                    at = index
                case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                    return false
                default:
                    break
                }
            }
            guard at > 0 else { return false }
            let domain = bytes[(at + 1)...]
            guard domain.first != UInt8(ascii: "."), domain.last != UInt8(ascii: "."), domain.contains(UInt8(ascii: ".")) else {
                return false
            }
            return !zip(domain, domain.dropFirst()).contains { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }
        }
        guard valid else {
            throw CellProblem(code: .invalidEmail, message: "not a valid email address",
                              hint: "write it as name@example.edu, one address per cell")
        }
        return lower
    }

    /// North-American numbers by default (10 digits, or 11 starting with 1); `+` numbers as given.
    /// Extensions (`x12`, `ext. 12`, `#12`) are kept as `;ext=12`. Works on ASCII bytes.
    private static func phone(_ text: String) throws(CellProblem) -> String {
        let invalid = CellProblem(code: .invalidPhone, message: "not a valid phone number",
                                  hint: "write a 10-digit US number like (805) 555-0134, or an international number starting with +")
        guard isASCII(text) else { throw invalid }
        let bytes = Array(asciiLowercased(text).utf8)
        // The extension starts at the first letter or `#`.
        let marker = bytes.firstIndex { (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "#") }
        var extensionDigits: [UInt8] = []
        if let marker {
            let rest = bytes[marker...]
            let word = rest.prefix { (0x61...0x7A).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "#") }
            guard ["x", "#", "ext", "ext.", "extension"].contains(String(decoding: word, as: UTF8.self)) else { throw invalid }
            extensionDigits = rest.dropFirst(word.count).filter { (0x30...0x39).contains($0) }
            guard !extensionDigits.isEmpty else { throw invalid }
        }
        let main = bytes[..<(marker ?? bytes.count)]
        guard main.allSatisfy({ (0x30...0x39).contains($0) || phonePunctuation.contains($0) }) else { throw invalid }
        let international = main.first { $0 != 0x20 } == UInt8(ascii: "+")
        var digits = main.filter { (0x30...0x39).contains($0) }
        if international {
            guard (8...15).contains(digits.count), digits.first != UInt8(ascii: "0") else { throw invalid }
        } else {
            if digits.count == 11 && digits.first == UInt8(ascii: "1") { digits.removeFirst() }
            guard digits.count == 10 else { throw invalid }
            digits.insert(UInt8(ascii: "1"), at: 0)
        }
        if digits.count == 11 && digits[0] == UInt8(ascii: "1") {
            guard digits[1] >= UInt8(ascii: "2"), digits[4] >= UInt8(ascii: "2") else { throw invalid }
        }
        var result = [UInt8(ascii: "+")] + digits
        if !extensionDigits.isEmpty { result += Array(";ext=".utf8) + extensionDigits }
        return String(decoding: result, as: UTF8.self)
    }

    private static func url(_ text: String) throws(CellProblem) -> String {
        let lower = text.lowercased()
        guard (lower.hasPrefix("https://") || lower.hasPrefix("http://")), text.count > 10,
              !text.contains(where: \.isWhitespace) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a web address",
                              hint: "start it with https://")
        }
        return text
    }

    private static func day(_ text: String) throws(CellProblem) -> String {
        guard let day = Weekday(name: text) else {
            throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not a day of the week",
                              hint: Suggestion.closest(to: text, among: Weekday.names).map { "did you mean \"\($0)\"?" }
                                  ?? "use Monday..Sunday or Mon..Sun")
        }
        return day.name
    }

    /// `19:00`, `7pm`, `7:30 PM`, `19:00:00`.
    static func parseTime(_ text: String) -> (hour: Int, minute: Int)? {
        var lower = text.lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: ".", with: "")
        var meridiem: String?
        for suffix in ["am", "pm", "a", "p"] where lower.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            lower.removeLast(suffix.count)
            break
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              var hour = Int(parts[0]), let minute = parts.count > 1 ? Int(parts[1]) : 0 else { return nil }
        if parts.count == 3, Int(parts[2]) != 0 { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            if meridiem == "a" && hour == 12 { hour = 0 }
            if meridiem == "p" && hour != 12 { hour += 12 }
        } else if parts.count == 1 {
            return nil
        }
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return (hour, minute)
    }

    private static func time(_ text: String) throws(CellProblem) -> String {
        guard let (hour, minute) = parseTime(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a time of day",
                              hint: "write it like 19:00, 7pm or 7:30 PM")
        }
        return twoDigits(hour) + ":" + twoDigits(minute)
    }

    private static func bool(_ text: String) throws(CellProblem) -> String {
        switch text.lowercased() {
        case "yes", "y", "true", "t", "1", "x": return "true"
        case "no", "n", "false", "f", "0": return "false"
        default:
            throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not yes or no", hint: "write yes or no")
        }
    }

    private static func personSex(_ text: String) throws(CellProblem) -> String {
        switch text.lowercased() {
        case "male", "m", "man", "1": return "male"
        case "female", "f", "woman", "2": return "female"
        case "0", "unknown": return "unknown"
        case "9", "not applicable", "n/a", "not-applicable": return "not-applicable"
        default:
            throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not a sex we recognise",
                              hint: "write male or female (or the ISO/IEC 5218 codes 1, 2, 0, 9)")
        }
    }

    private static let groupSexes = ["men": "men", "man": "men", "male": "men", "guys": "men", "women": "women",
                                     "woman": "women", "female": "women", "ladies": "women", "mixed": "mixed",
                                     "mixed sexes": "mixed", "co-ed": "mixed", "coed": "mixed"]
    private static let audiences = ["freshmen": "freshmen", "freshman": "freshmen", "sophomores": "sophomores",
                                    "sophomore": "sophomores", "juniors": "juniors", "junior": "juniors",
                                    "seniors": "seniors", "senior": "seniors", "graduates": "graduates",
                                    "graduate": "graduates", "grad": "graduates", "faculty": "faculty",
                                    "mixed": "mixed", "mixed ages": "mixed", "all": "mixed"]

    private static func choice(_ text: String, _ table: [String: String], accepted: String) throws(CellProblem) -> String {
        let lower = text.lowercased()
        guard let value = table[lower] else {
            throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not one of \(accepted)",
                              hint: Suggestion.closest(to: lower, among: Array(Set(table.values)).sorted()).map { "did you mean \"\($0)\"?" })
        }
        return value
    }

    static let schoolYears = ["freshman": 1, "first": 1, "1st": 1, "first year": 1, "sophomore": 2, "second": 2, "2nd": 2,
                              "junior": 3, "third": 3, "3rd": 3, "senior": 4, "fourth": 4, "4th": 4, "fifth": 5,
                              "5th": 5, "graduate": 5, "grad": 5, "fifth year": 5, "super senior": 5]

    private static func schoolYear(_ text: String) throws(CellProblem) -> String {
        if text.utf8.count == 1, let digit = text.utf8.first, (0x31...0x35).contains(digit) { return text }
        let lower = text.lowercased()
        if let year = schoolYears[lower] { return String(year) }
        guard let number = Int(lower) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a school year",
                              hint: "write 1-5 or freshman, sophomore, junior, senior, fifth")
        }
        guard (1...5).contains(number) else {
            throw CellProblem(code: .outOfRange, message: "school year \(number) is outside 1-5",
                              hint: "1 freshman, 2 sophomore, 3 junior, 4 senior, 5 fifth year or graduate")
        }
        return String(number)
    }

    private static func integer(_ text: String, in range: ClosedRange<Int>, what: String) throws(CellProblem) -> String {
        guard let number = Int(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a number", hint: "write \(what)")
        }
        guard range.contains(number) else {
            throw CellProblem(code: .outOfRange, message: "\(number) is out of range", hint: "write \(what)")
        }
        return String(number)
    }

    private static func money(_ text: String) throws(CellProblem) -> String {
        let cleaned = text.replacingOccurrences(of: "$", with: "").replacingOccurrences(of: ",", with: "")
            .trimmingCharacters(in: .whitespaces)
        guard let value = Decimal(string: cleaned, locale: Locale(identifier: "en_US_POSIX")),
              cleaned.allSatisfy({ $0.isNumber || $0 == "." }) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not an amount of money", hint: "write it like 3450.00")
        }
        guard value >= 0, value < 100_000_000 else {
            throw CellProblem(code: .outOfRange, message: "\(cleaned) is out of range", hint: "write an amount from 0 to 99999999.99")
        }
        return cleaned
    }

    /// `2026-09-21`, or `9/21/2026` as US spreadsheets write it.
    static func parseDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let iso = text.split(separator: "-", omittingEmptySubsequences: false)
        var parts: (Int, Int, Int)?
        if iso.count == 3, iso[0].count == 4, let y = Int(iso[0]), let m = Int(iso[1]), let d = Int(iso[2]) {
            parts = (y, m, d)
        } else {
            let us = text.split(separator: "/", omittingEmptySubsequences: false)
            if us.count == 3, us[2].count == 4, let m = Int(us[0]), let d = Int(us[1]), let y = Int(us[2]) { parts = (y, m, d) }
        }
        guard let (year, month, day) = parts, (1900...2200).contains(year), (1...12).contains(month) else { return nil }
        let monthDays = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        return (year, month, day)
    }

    private static func date(_ text: String) throws(CellProblem) -> String {
        guard let (year, month, day) = parseDate(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a date", hint: "write it like 2026-09-21")
        }
        return "\(year)-\(twoDigits(month))-\(twoDigits(day))"
    }

    /// `2026-10-02T19:00`, `2026-10-02 19:00:00`, with an optional `Z` or `±HH:MM` offset.
    private static func dateTime(_ text: String) throws(CellProblem) -> String {
        let problem = CellProblem(code: .typeError, message: "\"\(text)\" is not a date and time",
                                  hint: "write it like 2026-10-02T19:00:00 or 2026-10-02T19:00:00-07:00")
        let separator = text.firstIndex { $0 == "T" || $0 == " " }
        guard let separator, let (year, month, day) = parseDate(String(text[..<separator])) else { throw problem }
        var rest = Substring(text[text.index(after: separator)...])
        var offset = ""
        if rest.hasSuffix("Z") {
            offset = "Z"
            rest.removeLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let tail = rest[rest.index(after: sign)...].replacingOccurrences(of: ":", with: "")
            guard tail.count == 4 || tail.count == 2, let value = Int(tail) else { throw problem }
            let hours = tail.count == 4 ? value / 100 : value, minutes = tail.count == 4 ? value % 100 : 0
            guard hours <= 14, minutes < 60 else { throw problem }
            offset = String(rest[sign]) + twoDigits(hours) + ":" + twoDigits(minutes)
            rest = rest[..<sign]
        }
        let clock = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(clock.count), let hour = Int(clock[0]), let minute = Int(clock[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { throw problem }
        let secondText = clock.count == 3 ? String(clock[2]) : "0"
        guard let seconds = Double(secondText), seconds < 60 else { throw problem }
        return "\(year)-\(twoDigits(month))-\(twoDigits(day))T\(twoDigits(hour)):\(twoDigits(minute)):\(twoDigits(Int(seconds)))\(offset)"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Refuses C0 and C1 control characters, DEL and the Unicode line and paragraph separators: in
    /// a name or a location a line break would start a new line of an email (a forged `Bcc:` line).
    /// `multiline` text keeps line breaks and tabs. The cell is never echoed, only the character.
    private static func refuseControlCharacters(_ text: String, multiline: Bool) throws(CellProblem) {
        var copy = text
        // Bytes that start no such character rule it out without decoding; most cells stop here.
        let suspect = copy.withUTF8 { bytes in bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 } }
        guard suspect else { return }
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029,
                  !(multiline && (value == 0x09 || value == 0x0A || value == 0x0D)) else { continue }
            let lineBreaks: [UInt32] = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]
            let what = lineBreaks.contains(value) ? "a line break" : "a control character"
            let hex = String(value, radix: 16, uppercase: true)
            let name = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            throw CellProblem(
                code: .controlCharacter, message: "contains \(what) (\(name)) at character \(offset + 1)",
                hint: multiline ? "remove it; descriptions keep line breaks and tabs, nothing else invisible"
                    : "remove it; names, codes, titles and locations are one line of text")
        }
    }
}

/// "Did you mean": the closest known value by edit distance, if it is close enough to be a typo.
enum Suggestion {
    static func closest(to value: String, among candidates: [String]) -> String? {
        let target = Array(value.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        guard let (candidate, distance) = best, distance > 0, distance <= max(2, target.count / 3) else { return nil }
        return candidate
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
