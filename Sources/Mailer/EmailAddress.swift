import Foundation

/// A mailbox: an address with an optional display name, e.g. `Zoë Park <zoe@example.edu>`.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The display name, if any.
    public var name: String?
    /// The address itself, `local@domain`, without angle brackets.
    public var address: String

    /// An address with an optional display name, taken as given (see `parse(_:)` to validate).
    public init(_ address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// An address with an optional display name, taken as given (see `parse(_:)` to validate).
    public init(name: String?, address: String) {
        self.init(address, name: name)
    }

    /// Reads `a@b`, `<a@b>`, `Name <a@b>` or `"Name, Jr." <a@b>`, checking the address looks like
    /// one (`local@domain`, no spaces, no control characters, no `<>,;"`).
    public static func parse(_ text: String) throws(MailError) -> EmailAddress {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var name: String?
        var address = trimmed
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var phrase = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if phrase.count >= 2, phrase.hasPrefix("\""), phrase.hasSuffix("\"") {
                phrase = unquote(String(phrase.dropFirst().dropLast()))
            }
            name = phrase.isEmpty ? nil : phrase
        }
        address = address.trimmingCharacters(in: .whitespaces)
        guard isValidAddress(address) else {
            throw MailError(scope: .configuration,
                            message: "not an email address: \"\(MailEncoding.singleLine(text))\"")
        }
        return EmailAddress(address, name: name)
    }

    /// Whether `address` looks like `local@domain` and can go in a header and an SMTP command.
    public static func isValidAddress(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@"),
              at != address.startIndex, address.index(after: at) != address.endIndex
        else { return false }
        return !address.unicodeScalars.contains { scalar in
            scalar.value <= 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || "<>,;\"()[]\\".unicodeScalars.contains(scalar)
        }
    }

    /// The header form: `"Name" <a@b>` (RFC 2047 encoded words for a non-ASCII name), or `a@b`.
    public var rendered: String {
        guard let name, !name.isEmpty else { return address }
        return MailEncoding.displayName(name) + " <" + address + ">"
    }

    /// `Name <a@b>` or `a@b`, unencoded, for people.
    public var description: String {
        guard let name, !name.isEmpty else { return address }
        return "\(name) <\(address)>"
    }

    private static func unquote(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }
}
