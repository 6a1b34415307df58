import CSVStream
import Foundation

/// Why a cell's text is not a valid value of its column (or, as a warning, what was assumed to read
/// it): the code, a message and maybe a hint.
struct CellProblem: Error, Equatable {
    let code: DiagnosticCode
    let message: String
    var hint: String?
}

/// What one cell gives its row: the value its column stores, and what a person should know.
struct CellReading: Equatable {
    /// The canonical value; nil for an empty cell (or a word that stores nothing, such as `Transfer`).
    var value: String?
    /// The value rests on an assumption a person should check (`PST` read as America/Los_Angeles).
    var warning: CellProblem?
    /// `Class of 2028` in a school year cell: the graduation year, for the row's grad_year column.
    var gradYear: String?
}

/// Turns a cell's text into the canonical value its column stores (docs/guide/file-formats.md and
/// its "Vocabulary"), or says what is wrong. Empty cells give nil; the caller decides whether that is a
/// missing value.
enum CellNormalizer {
    static func read(_ raw: String, as type: CellType, dateOrder: DateOrder = .mdy) throws(CellProblem) -> CellReading {
        let text = trimmedNFC(raw)
        if text.isEmpty { return CellReading() }
        if case .list(let element) = type { return try list(text, of: element, dateOrder: dateOrder) }
        try refuseControlCharacters(text, multiline: type == .multilineText, keepsJoiners: type.isFreeText)
        switch type {
        case .text, .multilineText, .reference: return CellReading(value: text)
        case .code: return CellReading(value: try code(text))
        case .email: return CellReading(value: try email(text))
        case .phone: return CellReading(value: try phone(text))
        case .url: return CellReading(value: try url(text))
        case .time: return CellReading(value: try time(text))
        case .schoolYear: return try schoolYear(text)
        case .bool, .personSex, .groupSex, .audience, .staffRole, .membershipStatus, .resourceType, .day, .timezone,
             .rideshare, .rideDirection, .rideOfferStatus, .rideRequestStatus:
            return try word(text, in: type.vocabulary!)
        case .gradYear: return CellReading(value: try integer(text, in: 1950...2100, what: "a graduation year"))
        case .positiveInt: return CellReading(value: try integer(text, in: 1...1_000_000, what: "a whole number greater than 0"))
        case .seats: return CellReading(value: try integer(text, in: 1...8, what: "the passenger seats in the car, 1 to 8"))
        case .latitude: return CellReading(value: try degrees(text, limit: 90, what: "a latitude"))
        case .longitude: return CellReading(value: try degrees(text, limit: 180, what: "a longitude"))
        case .postalCode: return CellReading(value: try postalCode(text))
        case .money: return CellReading(value: try money(text))
        case .date: return CellReading(value: try DateTimeReader.date(text, order: dateOrder).text)
        case .dateTime: return CellReading(value: try DateTimeReader.dateTime(text, order: dateOrder))
        case .namedPeriods: return CellReading(value: try namedPeriods(text, dateOrder: dateOrder))
        case .recurrenceRule: return CellReading(value: try recurrenceRule(text))
        case .list: preconditionFailure("lists are read above")
        }
    }

    /// What separates the items of a list cell: `;` and line breaks always, and `,` when an item
    /// cannot hold a comma (codes, names of campuses and ministries, emails). Topics are free text
    /// and may hold commas, so a list of text is split on `;` and line breaks only.
    private static func splitsOnCommas(_ element: CellType) -> Bool { element != .text && element != .multilineText }

    /// The items in order, each read as `element`, duplicates dropped, joined by `;`.
    private static func list(_ text: String, of element: CellType, dateOrder: DateOrder) throws(CellProblem) -> CellReading {
        var values: [String] = []
        for part in items(of: text, commas: splitsOnCommas(element)) {
            if let value = try read(part, as: element, dateOrder: dateOrder).value, !values.contains(value) {
                values.append(value)
            }
        }
        return CellReading(value: values.isEmpty ? nil : values.joined(separator: ";"))
    }

    /// A list cell's items, split on the separators (all ASCII): on bytes when the text is ASCII, on
    /// characters otherwise, where a separator followed by a combining mark is no separator.
    private static func items(of text: String, commas: Bool) -> [String] {
        func separates(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ";") || byte == 0x0A || byte == 0x0D || (commas && byte == UInt8(ascii: ","))
        }
        guard isASCII(text) else {
            return text.split { $0.utf8.allSatisfy(separates) }.map(String.init)
        }
        return text.utf8.split(whereSeparator: separates).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Trims white space and puts the text in Unicode NFC. Nearly every cell takes a byte-level path
    /// without Foundation: plain ASCII, and text whose other characters are letters that are NFC as
    /// they stand (`isStableNFC`), between ASCII edges; a cell that needs no change is returned as it is.
    static func trimmedNFC(_ raw: String) -> String {
        var text = raw
        return text.withUTF8 { bytes -> String in
            var stable = true
            var first = -1, last = -1
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= 0x80 && stable { stable = isStableNFC(bytes, at: index) }
                if !isASCIISpace(byte) {
                    if first < 0 { first = index }
                    last = index
                }
                index += 1
            }
            // Of the stable characters, U+0085 and U+00A0 (C2 85, C2 A0) are white space: at an edge,
            // Foundation trims them.
            func isSpace(endingAt end: Int) -> Bool {
                end >= 1 && end < bytes.count && bytes[end - 1] == 0xC2 && (bytes[end] == 0x85 || bytes[end] == 0xA0)
            }
            guard stable, first < 0 || (!isSpace(endingAt: first + 1) && !isSpace(endingAt: last)) else {
                return raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            }
            if first < 0 { return "" }
            if first == 0 && last == bytes.count - 1 { return raw }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[first...last]), as: UTF8.self)
        }
    }

    /// Whether the character whose UTF-8 bytes start at `index` (or the continuation byte there) leaves
    /// the text in NFC whatever surrounds it: U+0080..U+02FF (Latin-1, Latin Extended-A and -B, IPA,
    /// spacing modifiers) and U+1E00..U+1EFF (Latin Extended Additional: Vietnamese) are all NFC and
    /// compose with nothing that follows them but a combining mark, which is not in these ranges.
    private static func isStableNFC(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        switch bytes[index] {
        case 0x80...0xBF: true  // a continuation byte, judged with its first byte
        case 0xC2...0xCB: true  // U+0080..U+02FF
        case 0xE1: index + 1 < bytes.count && (0xB8...0xBB).contains(bytes[index + 1])  // U+1E00..U+1EFF
        default: false
        }
    }

    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// ASCII lower case of a string that is known to be ASCII; the same string when already lower.
    private static func asciiLowercased(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { bytes in
            guard bytes.contains(where: \.isASCIIUppercaseLetter) else { return text }
            return String(decoding: bytes.map(\.asciiLowercased), as: UTF8.self)
        }
    }

    private static func isASCII(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in !bytes.contains { $0 >= 0x80 } }
    }

    private static func code(_ text: String) throws(CellProblem) -> String {
        let lower = isASCII(text) ? asciiLowercased(text) : text.lowercased()
        if lower.count > CodeRule.maximumLength {
            throw CellProblem(code: .outOfRange,
                              message: "\(lower.count) characters long; a code has at most \(CodeRule.maximumLength)",
                              hint: CodeRule.explanation)
        }
        guard CodeRule.accepts(lower) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a code", hint: CodeRule.explanation)
        }
        return lower
    }

    /// A word of a vocabulary (a sex, a role, a US time zone name ...) as the value it stands for;
    /// time zones are also every tz database name, in its canonical spelling.
    private static func word(_ text: String, in vocabulary: Vocabulary) throws(CellProblem) -> CellReading {
        if let term = vocabulary.term(for: text) {
            let warning = term.warning.map { reason in
                CellProblem(code: .assumedValue, message: "\"\(text)\" is read as \(term.value ?? "empty"): \(reason)",
                            hint: term.value.map { "write \($0) to say so" })
            }
            return CellReading(value: term.value, warning: warning)
        }
        if vocabulary == .timeZone {
            if let name = TimeZoneNames.canonicalSpelling(of: text) { return CellReading(value: name) }
            throw CellProblem(code: .invalidChoice, message: "\"\(text)\" is not a time zone of the tz database nor a US zone name",
                              hint: Suggestion.closest(to: text, among: vocabulary.spellings + TimeZoneNames.all)
                                  .map { "did you mean \"\($0)\"?" }
                                  ?? "use a tz database name such as America/Los_Angeles, or Pacific, Mountain, Central or Eastern")
        }
        throw CellProblem(code: .invalidChoice,
                          message: "\"\(text)\" is not one of \(vocabulary.values.joined(separator: ", "))",
                          hint: Suggestion.closest(to: text, among: vocabulary.spellings).map { "did you mean \"\($0)\"?" })
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
    /// Extensions (`x12`, `ext. 12`, `#12`) are kept as `;ext=12`; a label in parentheses from the
    /// phone-label vocabulary (`(cell)`, `(work)`) is dropped. Works on ASCII bytes.
    private static func phone(_ text: String) throws(CellProblem) -> String {
        let invalid = CellProblem(code: .invalidPhone, message: "not a valid phone number",
                                  hint: "write a 10-digit US number like (805) 555-0134, or an international number starting with +")
        guard isASCII(text) else { throw invalid }
        var bytes = Array(asciiLowercased(text).utf8)
        // A parenthesised group holding a letter is a label, not an area code.
        func label() -> ClosedRange<Int>? {
            var start = bytes.startIndex
            while let open = bytes[start...].firstIndex(of: UInt8(ascii: "(")),
                  let close = bytes[open...].firstIndex(of: UInt8(ascii: ")")) {
                if bytes[open..<close].contains(where: \.isASCIILowercaseLetter) { return open...close }
                start = close
            }
            return nil
        }
        while let group = label() {
            guard Vocabulary.phoneLabel.term(for: String(decoding: bytes[group].dropFirst().dropLast(), as: UTF8.self)) != nil else {
                throw CellProblem(code: .invalidPhone, message: "not a valid phone number",
                                  hint: "a label in parentheses may be \(Vocabulary.phoneLabel.values.joined(separator: ", ")); "
                                      + "write the number like (805) 555-0134 (cell)")
            }
            bytes.removeSubrange(group)
        }
        // RFC 3966's form, which crubatch writes (`+18055550101;ext=12`), reads as `ext 12`.
        // (Searched byte by byte: Foundation's `firstRange(of:)` had been a ninth of reading a file.)
        let form = Array(";ext=".utf8)
        if let start = bytes.indices.first(where: { bytes[$0] == form[0] && bytes[$0...].starts(with: form) }) {
            bytes.replaceSubrange(start..<start + form.count, with: Array(" ext ".utf8))
        }
        // The extension starts at the first letter or `#`.
        let marker = bytes.firstIndex { $0.isASCIILowercaseLetter || $0 == UInt8(ascii: "#") }
        var extensionDigits: [UInt8] = []
        if let marker {
            let rest = bytes[marker...]
            let word = rest.prefix { $0.isASCIILowercaseLetter || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "#") }
            guard ["x", "#", "ext", "ext.", "extension"].contains(String(decoding: word, as: UTF8.self)) else { throw invalid }
            extensionDigits = rest.dropFirst(word.count).filter(\.isASCIIDigit)
            guard !extensionDigits.isEmpty else { throw invalid }
        }
        let main = bytes[..<(marker ?? bytes.count)]
        guard main.allSatisfy({ $0.isASCIIDigit || phonePunctuation.contains($0) }) else { throw invalid }
        let international = main.first { $0 != 0x20 } == UInt8(ascii: "+")
        var digits = main.filter(\.isASCIIDigit)
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

    /// A clock time: `19:00`, `7pm`, `7:30 PM`, `19:00:00`, `19:00:00.5`, or a word of the
    /// time-of-day vocabulary (`noon`, `midnight`).
    static func parseClock(_ text: String) -> (hour: Int, minute: Int, second: Int)? {
        if let value = Vocabulary.timeOfDay.term(for: text)?.value, let (hour, minute) = parseTime(value) {
            return (hour, minute, 0)
        }
        var lower = text.lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: ".", with: "")
        var meridiem: String?
        for suffix in ["am", "pm", "a", "p"] where lower.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            lower.removeLast(suffix.count)
            break
        }
        // Fractions of a second (`19:00:00.5`) lost their dot above; only whole seconds are kept.
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.dropLast().allSatisfy({ $0.count <= 2 }),
              var hour = Int(parts[0]), let minute = parts.count > 1 ? Int(parts[1]) : 0 else { return nil }
        let second = parts.count == 3 ? Int(parts[2].prefix(2)) ?? 0 : 0
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            if meridiem == "a" && hour == 12 { hour = 0 }
            if meridiem == "p" && hour != 12 { hour += 12 }
        } else if parts.count == 1 {
            return nil
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return (hour, minute, second)
    }

    /// A time of day to the minute (a clock with seconds other than 0 is not one).
    static func parseTime(_ text: String) -> (hour: Int, minute: Int)? {
        guard let (hour, minute, second) = parseClock(text), second == 0 else { return nil }
        return (hour, minute)
    }

    private static func time(_ text: String) throws(CellProblem) -> String {
        guard let (hour, minute) = parseTime(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a time of day",
                              hint: "write it like 19:00, 7pm, 7:30 PM or noon")
        }
        return twoDigits(hour) + ":" + twoDigits(minute)
    }

    /// A school year: 1-5, or a word of the school-year vocabulary; `Class of 2028` stores no school
    /// year (it changes every summer) but gives the row its graduation year.
    private static func schoolYear(_ text: String) throws(CellProblem) -> CellReading {
        if text.utf8.count == 1, let digit = text.utf8.first, (0x31...0x35).contains(digit) { return CellReading(value: text) }
        if let reading = try? word(text, in: .schoolYear) { return reading }
        let words = NameWords.words(of: text)
        if words.count == 3, words[0] == "class", words[1] == "of", words[2].count == 4 {
            return CellReading(gradYear: try integer(words[2], in: 1950...2100, what: "a graduation year"))
        }
        guard let number = Int(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a school year",
                              hint: "write 1-5, freshman .. senior, Fr/So/Jr/Sr, 5th year, grad student, or Class of 2028")
        }
        guard (1...5).contains(number) else {
            throw CellProblem(code: .outOfRange, message: "school year \(number) is outside 1-5",
                              hint: "1 freshman, 2 sophomore, 3 junior, 4 senior, 5 fifth year or graduate")
        }
        return CellReading(value: String(number))
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

    /// Decimal degrees between -`limit` and `limit` (`35.3`, `-120.66`), as written.
    private static func degrees(_ text: String, limit: Double, what: String) throws(CellProblem) -> String {
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              digits.filter({ $0 == "." }).count <= 1, let value = Double(text) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not \(what) in decimal degrees",
                              hint: "write it like 35.3 or -120.66, latitude and longitude each in its own column")
        }
        guard abs(value) <= limit else {
            throw CellProblem(code: .outOfRange, message: "\(text) is out of range",
                              hint: "\(what) lies between -\(Int(limit)) and \(Int(limit))")
        }
        return text.hasPrefix("+") ? String(digits) : text
    }

    /// Letters, digits, spaces and hyphens, 3 to 10 of them (`93407`, `93407-0001`, `SW1A 1AA`).
    private static func postalCode(_ text: String) throws(CellProblem) -> String {
        let upper = text.uppercased()
        guard (3...10).contains(upper.count),
              upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " " || $0 == "-") }) else {
            throw CellProblem(code: .typeError, message: "\"\(text)\" is not a postal code",
                              hint: "write it like 93407 or 93407-0001")
        }
        return upper
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Refuses C0 and C1 control characters, DEL and the Unicode line and paragraph separators: in
    /// a name or a location a line break would start a new line of an email (a forged `Bcc:` line).
    /// `multiline` text keeps line breaks and tabs. Refuses too the invisible characters that change
    /// how text reads without showing (`invisibleFormatting`): a right-to-left override shows
    /// `Smith<U+202E>exe.fdp` as `Smithpdf.exe`, a zero-width space makes `admin` two different names.
    /// The cell is never echoed, only the character.
    private static func refuseControlCharacters(_ text: String, multiline: Bool,
                                                keepsJoiners: Bool) throws(CellProblem) {
        var copy = text
        // Bytes that start no such character rule it out without decoding; most cells stop here.
        // (E2: U+2000..U+2FFF; D8: U+0600..U+063F; EF: U+F000..U+FFFF.)
        let suspect = copy.withUTF8 { bytes in
            bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xD8 || $0 == 0xEF }
        }
        guard suspect else { return }
        /// `U+202E`: the scalar's code point.
        func codePoint(_ value: UInt32) -> String {
            let hex = String(value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        let scalars = Array(text.unicodeScalars)
        for (offset, scalar) in scalars.enumerated() {
            let value = scalar.value
            if invisibleFormatting.contains(value) {
                let isJoiner = value == 0x200C || value == 0x200D
                if keepsJoiners && isJoiner && joinsLetters(scalars, at: offset) { continue }
                let name = codePoint(value) + " " + (scalar.properties.name ?? "")
                throw CellProblem(
                    code: .controlCharacter,
                    message: "contains an invisible formatting character (\(name)) at character \(offset + 1)",
                    hint: "remove it: it changes how the text reads without showing; retype the text if it was pasted")
            }
            guard value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029,
                  !(multiline && (value == 0x09 || value == 0x0A || value == 0x0D)) else { continue }
            let lineBreaks: [UInt32] = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]
            let what = lineBreaks.contains(value) ? "a line break" : "a control character"
            throw CellProblem(
                code: .controlCharacter, message: "contains \(what) (\(codePoint(value))) at character \(offset + 1)",
                hint: multiline ? "remove it; descriptions keep line breaks and tabs, nothing else invisible"
                    : "remove it; names, codes, titles and locations are one line of text")
        }
    }

    /// The bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) and the
    /// zero-width characters (U+200B..U+200D, U+2060, U+FEFF), refused in every cell.
    ///
    /// ZWNJ and ZWJ (U+200C, U+200D) are a choice: Persian writes ZWNJ inside words (`می‌خواهم`) and
    /// Indic scripts use both after a virama to pick a letter's form, so a name, title or location
    /// keeps one that stands between two letters of a script other than Latin (a mark such as the
    /// virama counts as a letter before it). Everywhere else, and always in codes, emails, phones and
    /// the other typed cells, they are refused: between Latin letters they only make `paypal` and
    /// `pay‌pal` two different names that look the same. Emoji sequences, the other use of ZWJ, have
    /// no place in a name.
    private static let invisibleFormatting: Set<UInt32> = [
        0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
        0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF,
    ]

    /// Whether the joiner at `offset` stands between two letters of scripts that join (not Latin):
    /// a letter or mark before it, a letter after it.
    private static func joinsLetters(_ scalars: [Unicode.Scalar], at offset: Int) -> Bool {
        guard offset > 0, offset + 1 < scalars.count else { return false }
        func isJoiningScript(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 0x0370 && !(0x1E00...0x1EFF).contains(scalar.value)
        }
        let before = scalars[offset - 1], after = scalars[offset + 1]
        return isJoiningScript(before) && isJoiningScript(after)
            && (before.properties.isAlphabetic || before.properties.generalCategory == .nonspacingMark
                || before.properties.generalCategory == .spacingMark)
            && after.properties.isAlphabetic
    }
}
