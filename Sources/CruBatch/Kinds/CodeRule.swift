import CSVStream
import Foundation

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
