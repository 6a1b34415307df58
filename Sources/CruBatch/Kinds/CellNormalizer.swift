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

/// Turns a cell's text into the canonical value its column stores (the README's "File formats" and
/// "Vocabulary"), or says what is wrong. Empty cells give nil; the caller decides whether that is a
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
        if let form = bytes.firstRange(of: Array(";ext=".utf8)) { bytes.replaceSubrange(form, with: Array(" ext ".utf8)) }
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

/// The rule every code follows (campuses, ministries, teams, groups, events, missions): 1-63
/// lower-case ASCII letters, digits, `.`, `_` and `-`, starting with a letter or a digit, with no
/// `..`. So a code is always a safe file name. Migration 3 checks the same rule in the database.
enum CodeRule {
    static let maximumLength = 63
    static let explanation = "a code is 1-\(maximumLength) lower-case letters a-z, digits, '.', '_' or '-', "
        + "starting with a letter or a digit, without '..'"

    /// `text` made a code: lower case, letters a-z, digits, `.` and `_` kept, each run of anything
    /// else one `-`, at most `length` long, starting and ending with a letter or a digit (empty
    /// when it has none).
    static func slug(_ text: String, length: Int = maximumLength) -> String {
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_"
            if keep && !(scalar == "." && slug.hasSuffix(".")) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty && !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        let prefix = slug.prefix(length).drop { !$0.isLetter && !$0.isNumber }
        return String(prefix.reversed().drop { !$0.isLetter && !$0.isNumber }.reversed())
    }

    static func accepts(_ code: String) -> Bool {
        var copy = code
        return copy.withUTF8 { bytes in
            func isLetterOrDigit(_ byte: UInt8) -> Bool { byte.isASCIILowercaseLetter || byte.isASCIIDigit }
            guard let first = bytes.first, isLetterOrDigit(first), bytes.count <= maximumLength else { return false }
            let dot = UInt8(ascii: ".")
            return bytes.allSatisfy { isLetterOrDigit($0) || $0 == dot || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
                && !zip(bytes, bytes.dropFirst()).contains { $0 == dot && $1 == dot }
        }
    }
}

/// The time zones crubatch accepts: every Zone and Link name of the tz database (the zone1970.tab
/// and zone.tab zones, their backward-compatible links, `UTC` and `Etc/*`), release 2025b. Not the
/// names that are only files of a zoneinfo folder (`posix/*`, `right/*`, `posixrules`, `localtime`)
/// nor `Factory`. Listed by `awk '$1=="Z"{print $2} $1=="L"{print $3}' tzdata.zi | grep -vx Factory`.
enum TimeZoneNames {
    /// The zone of a campus or an event that gives none (and cannot inherit one), with a warning.
    static let defaultZone = "America/Los_Angeles"

    static let all: [String] = """
        Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers Africa/Asmara Africa/Asmera Africa/Bamako
        Africa/Bangui Africa/Banjul Africa/Bissau Africa/Blantyre Africa/Brazzaville Africa/Bujumbura Africa/Cairo
        Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala
        Africa/El_Aaiun Africa/Freetown Africa/Gaborone Africa/Harare Africa/Johannesburg Africa/Juba Africa/Kampala
        Africa/Khartoum Africa/Kigali Africa/Kinshasa Africa/Lagos Africa/Libreville Africa/Lome Africa/Luanda
        Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru Africa/Mbabane Africa/Mogadishu
        Africa/Monrovia Africa/Nairobi Africa/Ndjamena Africa/Niamey Africa/Nouakchott Africa/Ouagadougou
        Africa/Porto-Novo Africa/Sao_Tome Africa/Timbuktu Africa/Tripoli Africa/Tunis Africa/Windhoek America/Adak
        America/Anchorage America/Anguilla America/Antigua America/Araguaina America/Argentina/Buenos_Aires
        America/Argentina/Catamarca America/Argentina/ComodRivadavia America/Argentina/Cordoba America/Argentina/Jujuy
        America/Argentina/La_Rioja America/Argentina/Mendoza America/Argentina/Rio_Gallegos America/Argentina/Salta
        America/Argentina/San_Juan America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia
        America/Aruba America/Asuncion America/Atikokan America/Atka America/Bahia America/Bahia_Banderas
        America/Barbados America/Belem America/Belize America/Blanc-Sablon America/Boa_Vista America/Bogota
        America/Boise America/Buenos_Aires America/Cambridge_Bay America/Campo_Grande America/Cancun America/Caracas
        America/Catamarca America/Cayenne America/Cayman America/Chicago America/Chihuahua America/Ciudad_Juarez
        America/Coral_Harbour America/Cordoba America/Costa_Rica America/Coyhaique America/Creston America/Cuiaba
        America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek America/Denver America/Detroit
        America/Dominica America/Edmonton America/Eirunepe America/El_Salvador America/Ensenada America/Fort_Nelson
        America/Fort_Wayne America/Fortaleza America/Glace_Bay America/Godthab America/Goose_Bay America/Grand_Turk
        America/Grenada America/Guadeloupe America/Guatemala America/Guayaquil America/Guyana America/Halifax
        America/Havana America/Hermosillo America/Indiana/Indianapolis America/Indiana/Knox America/Indiana/Marengo
        America/Indiana/Petersburg America/Indiana/Tell_City America/Indiana/Vevay America/Indiana/Vincennes
        America/Indiana/Winamac America/Indianapolis America/Inuvik America/Iqaluit America/Jamaica America/Jujuy
        America/Juneau America/Kentucky/Louisville America/Kentucky/Monticello America/Knox_IN America/Kralendijk
        America/La_Paz America/Lima America/Los_Angeles America/Louisville America/Lower_Princes America/Maceio
        America/Managua America/Manaus America/Marigot America/Martinique America/Matamoros America/Mazatlan
        America/Mendoza America/Menominee America/Merida America/Metlakatla America/Mexico_City America/Miquelon
        America/Moncton America/Monterrey America/Montevideo America/Montreal America/Montserrat America/Nassau
        America/New_York America/Nipigon America/Nome America/Noronha America/North_Dakota/Beulah
        America/North_Dakota/Center America/North_Dakota/New_Salem America/Nuuk America/Ojinaga America/Panama
        America/Pangnirtung America/Paramaribo America/Phoenix America/Port-au-Prince America/Port_of_Spain
        America/Porto_Acre America/Porto_Velho America/Puerto_Rico America/Punta_Arenas America/Rainy_River
        America/Rankin_Inlet America/Recife America/Regina America/Resolute America/Rio_Branco America/Rosario
        America/Santa_Isabel America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo
        America/Scoresbysund America/Shiprock America/Sitka America/St_Barthelemy America/St_Johns America/St_Kitts
        America/St_Lucia America/St_Thomas America/St_Vincent America/Swift_Current America/Tegucigalpa America/Thule
        America/Thunder_Bay America/Tijuana America/Toronto America/Tortola America/Vancouver America/Virgin
        America/Whitehorse America/Winnipeg America/Yakutat America/Yellowknife Antarctica/Casey Antarctica/Davis
        Antarctica/DumontDUrville Antarctica/Macquarie Antarctica/Mawson Antarctica/McMurdo Antarctica/Palmer
        Antarctica/Rothera Antarctica/South_Pole Antarctica/Syowa Antarctica/Troll Antarctica/Vostok
        Arctic/Longyearbyen Asia/Aden Asia/Almaty Asia/Amman Asia/Anadyr Asia/Aqtau Asia/Aqtobe Asia/Ashgabat
        Asia/Ashkhabad Asia/Atyrau Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul Asia/Beirut
        Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Choibalsan Asia/Chongqing Asia/Chungking Asia/Colombo
        Asia/Dacca Asia/Damascus Asia/Dhaka Asia/Dili Asia/Dubai Asia/Dushanbe Asia/Famagusta Asia/Gaza Asia/Harbin
        Asia/Hebron Asia/Ho_Chi_Minh Asia/Hong_Kong Asia/Hovd Asia/Irkutsk Asia/Istanbul Asia/Jakarta Asia/Jayapura
        Asia/Jerusalem Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Kashgar Asia/Kathmandu Asia/Katmandu Asia/Khandyga
        Asia/Kolkata Asia/Krasnoyarsk Asia/Kuala_Lumpur Asia/Kuching Asia/Kuwait Asia/Macao Asia/Macau Asia/Magadan
        Asia/Makassar Asia/Manila Asia/Muscat Asia/Nicosia Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk Asia/Oral
        Asia/Phnom_Penh Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda Asia/Rangoon Asia/Riyadh
        Asia/Saigon Asia/Sakhalin Asia/Samarkand Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Srednekolymsk
        Asia/Taipei Asia/Tashkent Asia/Tbilisi Asia/Tehran Asia/Tel_Aviv Asia/Thimbu Asia/Thimphu Asia/Tokyo
        Asia/Tomsk Asia/Ujung_Pandang Asia/Ulaanbaatar Asia/Ulan_Bator Asia/Urumqi Asia/Ust-Nera Asia/Vientiane
        Asia/Vladivostok Asia/Yakutsk Asia/Yangon Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores Atlantic/Bermuda
        Atlantic/Canary Atlantic/Cape_Verde Atlantic/Faeroe Atlantic/Faroe Atlantic/Jan_Mayen Atlantic/Madeira
        Atlantic/Reykjavik Atlantic/South_Georgia Atlantic/St_Helena Atlantic/Stanley Australia/ACT Australia/Adelaide
        Australia/Brisbane Australia/Broken_Hill Australia/Canberra Australia/Currie Australia/Darwin Australia/Eucla
        Australia/Hobart Australia/LHI Australia/Lindeman Australia/Lord_Howe Australia/Melbourne Australia/NSW
        Australia/North Australia/Perth Australia/Queensland Australia/South Australia/Sydney Australia/Tasmania
        Australia/Victoria Australia/West Australia/Yancowinna Brazil/Acre Brazil/DeNoronha Brazil/East Brazil/West
        CET CST6CDT Canada/Atlantic Canada/Central Canada/Eastern Canada/Mountain Canada/Newfoundland Canada/Pacific
        Canada/Saskatchewan Canada/Yukon Chile/Continental Chile/EasterIsland Cuba EET EST EST5EDT Egypt Eire Etc/GMT
        Etc/GMT+0 Etc/GMT+1 Etc/GMT+10 Etc/GMT+11 Etc/GMT+12 Etc/GMT+2 Etc/GMT+3 Etc/GMT+4 Etc/GMT+5 Etc/GMT+6
        Etc/GMT+7 Etc/GMT+8 Etc/GMT+9 Etc/GMT-0 Etc/GMT-1 Etc/GMT-10 Etc/GMT-11 Etc/GMT-12 Etc/GMT-13 Etc/GMT-14
        Etc/GMT-2 Etc/GMT-3 Etc/GMT-4 Etc/GMT-5 Etc/GMT-6 Etc/GMT-7 Etc/GMT-8 Etc/GMT-9 Etc/GMT0 Etc/Greenwich Etc/UCT
        Etc/UTC Etc/Universal Etc/Zulu Europe/Amsterdam Europe/Andorra Europe/Astrakhan Europe/Athens Europe/Belfast
        Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels Europe/Bucharest Europe/Budapest
        Europe/Busingen Europe/Chisinau Europe/Copenhagen Europe/Dublin Europe/Gibraltar Europe/Guernsey
        Europe/Helsinki Europe/Isle_of_Man Europe/Istanbul Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov
        Europe/Kyiv Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg Europe/Madrid Europe/Malta
        Europe/Mariehamn Europe/Minsk Europe/Monaco Europe/Moscow Europe/Nicosia Europe/Oslo Europe/Paris
        Europe/Podgorica Europe/Prague Europe/Riga Europe/Rome Europe/Samara Europe/San_Marino Europe/Sarajevo
        Europe/Saratov Europe/Simferopol Europe/Skopje Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane
        Europe/Tiraspol Europe/Ulyanovsk Europe/Uzhgorod Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Vilnius
        Europe/Volgograd Europe/Warsaw Europe/Zagreb Europe/Zaporozhye Europe/Zurich GB GB-Eire GMT GMT+0 GMT-0 GMT0
        Greenwich HST Hongkong Iceland Indian/Antananarivo Indian/Chagos Indian/Christmas Indian/Cocos Indian/Comoro
        Indian/Kerguelen Indian/Mahe Indian/Maldives Indian/Mauritius Indian/Mayotte Indian/Reunion Iran Israel
        Jamaica Japan Kwajalein Libya MET MST MST7MDT Mexico/BajaNorte Mexico/BajaSur Mexico/General NZ NZ-CHAT Navajo
        PRC PST8PDT Pacific/Apia Pacific/Auckland Pacific/Bougainville Pacific/Chatham Pacific/Chuuk Pacific/Easter
        Pacific/Efate Pacific/Enderbury Pacific/Fakaofo Pacific/Fiji Pacific/Funafuti Pacific/Galapagos
        Pacific/Gambier Pacific/Guadalcanal Pacific/Guam Pacific/Honolulu Pacific/Johnston Pacific/Kanton
        Pacific/Kiritimati Pacific/Kosrae Pacific/Kwajalein Pacific/Majuro Pacific/Marquesas Pacific/Midway
        Pacific/Nauru Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago Pacific/Palau Pacific/Pitcairn
        Pacific/Pohnpei Pacific/Ponape Pacific/Port_Moresby Pacific/Rarotonga Pacific/Saipan Pacific/Samoa
        Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk Pacific/Wake Pacific/Wallis Pacific/Yap Poland
        Portugal ROC ROK Singapore Turkey UCT US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana US/Eastern
        US/Hawaii US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa UTC Universal W-SU WET Zulu
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    private static let byLowercasedName = Dictionary(uniqueKeysWithValues: all.map { ($0.lowercased(), $0) })

    /// The name as the tz database spells it, or nil when it is not one of its names.
    static func canonicalSpelling(of name: String) -> String? { byLowercasedName[name.lowercased()] }
}
