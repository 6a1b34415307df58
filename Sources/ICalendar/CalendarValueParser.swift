import Foundation

/// The iCalendar value types that events use: TEXT (quoted-printable too, as vCalendar 1.0 wrote
/// it), DATE, DATE-TIME and DURATION.
enum CalendarValueParser {
    /// The TEXT value of a property: decoded first when it says `ENCODING=QUOTED-PRINTABLE` (Outlook
    /// 2003's leftover of vCalendar 1.0, whose text has no backslash escapes); nil for another
    /// encoding, which a text property cannot have.
    static func text(of property: ContentLine) -> String? {
        switch property.parameter("ENCODING")?.uppercased() {
        case nil, "8BIT": return text(property.value)
        case "QUOTED-PRINTABLE": return quotedPrintable(property.value)
        default: return nil
        }
    }

    /// `=2C` and `=0D=0A` as the bytes they stand for, read as UTF-8 (as ISO 8859-1 when they are
    /// not UTF-8); a trailing `=` (a soft line break) is dropped, and each line break is a line feed,
    /// as a TEXT value's `\n` is.
    static func quotedPrintable(_ value: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(value.utf8)[...]
        while let byte = input.popFirst() {
            let pair = input.prefix(2)
            guard byte == UInt8(ascii: "="), pair.count == 2, pair.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let decoded = UInt8(String(decoding: pair, as: UTF8.self), radix: 16)
            else {
                bytes.append(byte)
                continue
            }
            bytes.append(decoded)
            input = input.dropFirst(2)
        }
        if bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        let text = String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// A TEXT value with `\\`, `\;`, `\,` and `\n` (or `\N`) unescaped.
    static func text(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// `YYYYMMDD` (a date), `YYYYMMDDTHHMMSS` (in `timeZone`, floating without one) or
    /// `YYYYMMDDTHHMMSSZ` (UTC); nil for anything else or an impossible date or time.
    static func time(_ text: String, timeZone: String?) -> CalendarTime? {
        let characters = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= characters.count,
                characters[range].allSatisfy({ (0x30...0x39).contains($0) })
            else { return nil }
            return Int(String(decoding: characters[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        if characters.count == 8 {
            let date = CalendarEvent.LocalDateTime(year: year, month: month, day: day)
            return date.isValid ? .date(date) : nil
        }
        guard characters.count == 15 || (characters.count == 16 && characters[15] == UInt8(ascii: "Z")),
            characters[8] == UInt8(ascii: "T"),
            let hour = number(9..<11), let minute = number(11..<13), var second = number(13..<15)
        else { return nil }
        // A leap second (60) is read as the last second of its minute.
        second = min(second, 59)
        let time = CalendarEvent.LocalDateTime(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard time.isValid else { return nil }
        if characters.count == 16 { return .utc(time) }
        return timeZone.map { .zoned(time, timeZone: $0) } ?? .floating(time)
    }

    /// A DURATION (`PT1H30M`, `P1D`, `P2W`, `-PT15M`) as whole days and seconds.
    static func duration(_ text: String) -> (days: Int, seconds: Int)? {
        var rest = Substring(text.uppercased())
        var sign = 1
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var days = 0, seconds = 0, inTime = false, digits = "", sawValue = false
        for character in rest {
            switch character {
            case "0"..."9": digits.append(character)
            case "T" where !inTime && digits.isEmpty: inTime = true
            case "W", "D", "H", "M", "S":
                guard let value = Int(digits) else { return nil }
                switch (character, inTime) {
                case ("W", false): days += 7 * value
                case ("D", false): days += value
                case ("H", true): seconds += 3600 * value
                case ("M", true): seconds += 60 * value
                case ("S", true): seconds += value
                default: return nil
                }
                digits = ""
                sawValue = true
            default:
                return nil
            }
        }
        guard sawValue, digits.isEmpty else { return nil }
        return (sign * days, sign * seconds)
    }
}
