import CivilDays
import Foundation

/// The encodings a plain-text email needs: quoted-printable bodies, RFC 2047 encoded words,
/// folded header lines and RFC 5322 dates. Internal: callers use `EmailMessage.rendered()`.
enum MailEncoding {
    static let crlf: [UInt8] = [13, 10]

    /// The longest header line we aim for (RFC 5322 recommends 78; 998 is the hard limit).
    static let foldWidth = 78

    // MARK: Header text

    /// `text` with line breaks and tabs turned into spaces, so it cannot start a new header.
    static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x0A, 0x0D, 0x09, 0x0B, 0x0C, 0x85, 0x2028, 0x2029: return " "
            case 0..<0x20, 0x7F: return "\u{FFFD}"
            default: return scalar
            }
        }))
    }

    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// RFC 2047 "B" encoded words for `text`, each at most 75 characters and each holding whole
    /// characters (a decoder may decode words one at a time).
    static func encodedWords(_ text: String) -> [String] {
        let maxBytes = 42 // 56 base64 characters + "=?UTF-8?B?" + "?=" = 68, so "Subject: " + a word fits in 78
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
            chunk = []
        }
        for character in text {
            var pieces = [Array(String(character).utf8)]
            if pieces[0].count > maxBytes { // an enormous grapheme cluster: split it by scalar
                pieces = character.unicodeScalars.map { Array(String($0).utf8) }
            }
            for piece in pieces {
                if chunk.count + piece.count > maxBytes { flush() }
                chunk += piece
            }
        }
        flush()
        return words.isEmpty ? ["=?UTF-8?B??="] : words
    }

    /// An unstructured header (Subject, extra headers): plain when it is short printable ASCII
    /// that does not look like an encoded word, otherwise encoded words; folded either way.
    static func unstructuredHeader(_ name: String, _ value: String) -> String {
        let value = singleLine(value)
        let needsEncoding = !isPrintableASCII(value) || value.contains("=?")
            || value.split(separator: " ").contains { $0.utf8.count > 900 }
        if needsEncoding {
            return fold(name, tokens: encodedWords(value), separator: " ")
        }
        return fold(name, tokens: value.split(separator: " ", omittingEmptySubsequences: false).map(String.init),
                    separator: " ")
    }

    /// `Name: token sep token …`, breaking the line before a token when it would pass 78 characters.
    /// A break after `separator` keeps its non-space part (", " becomes ",\r\n ").
    static func fold(_ name: String, tokens: [String], separator: String) -> String {
        let kept = separator.trimmingCharacters(in: .whitespaces)
        var result = name + ":"
        var lineLength = result.utf8.count
        for (index, token) in tokens.enumerated() {
            let lead = index == 0 ? " " : separator
            let fits = lineLength + lead.utf8.count + token.utf8.count <= foldWidth
            // Never fold before an empty token: that could leave a line of only white space.
            if index == 0 || fits || token.isEmpty {
                result += lead + token
                lineLength += lead.utf8.count + token.utf8.count
            } else {
                result += kept + "\r\n " + token
                lineLength = 1 + token.utf8.count
            }
        }
        return result
    }

    /// A display name as a quoted string, or as encoded words when it is not ASCII.
    static func displayName(_ name: String) -> String {
        let name = singleLine(name)
        if isPrintableASCII(name) && !name.contains("=?") {
            var quoted = "\""
            for character in name {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted + "\""
        }
        return encodedWords(name).joined(separator: "\r\n ")
    }

    // MARK: Body

    /// `text` as quoted-printable (RFC 2045) UTF-8 with CRLF line ends: every line break in the
    /// input (LF, CRLF or CR) becomes a hard CRLF, lines are soft-broken at 76 characters, trailing
    /// white space is encoded, and a line starting with "." or "From " is encoded too.
    static func quotedPrintable(_ text: String) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for line in lines(of: text) {
            var lineLength = 0
            for (index, byte) in line.enumerated() {
                let isLast = index == line.count - 1
                let literal: Bool
                switch byte {
                case 0x3D: literal = false // "="
                case 0x20, 0x09: literal = !isLast
                case 0x2E: literal = index != 0 // "." at the start of a line
                case 0x46: literal = !(index == 0 && line.starts(with: Array("From ".utf8)))
                case 0x21...0x7E: literal = true
                default: literal = false
                }
                let width = literal ? 1 : 3
                // Room for the token, plus "=" for a soft break unless this is the line's end.
                if lineLength + width > (isLast ? 76 : 75) {
                    output += [0x3D, 13, 10]
                    lineLength = 0
                }
                if literal {
                    output.append(byte)
                } else {
                    output += [0x3D, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                }
                lineLength += width
            }
            output += crlf
        }
        return output
    }

    /// The lines of `text` as UTF-8, split at LF, CRLF or CR; a final line break adds no empty line.
    static func lines(of text: String) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var current: [UInt8] = []
        var previousWasCR = false
        for byte in text.utf8 {
            if byte == 10 && previousWasCR { previousWasCR = false; continue }
            previousWasCR = byte == 13
            if byte == 10 || byte == 13 {
                result.append(current)
                current = []
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    // MARK: Dates

    /// `date` in RFC 5322 form, in UTC: "Tue, 04 Mar 2025 14:05:09 +0000" (English names, whatever
    /// the machine's locale), by integer arithmetic: a calendar built for each message had been a
    /// fortieth of `notify`'s CPU.
    static func rfc5322Date(_ date: Date) -> String {
        let (days, time) = CivilDay.day(ofSecond: Int(date.timeIntervalSince1970.rounded(.down)))
        let (year, month, day) = CivilDay.date(days)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(names[CivilDay.weekday(days)]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) +0000"
    }
}
