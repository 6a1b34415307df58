import Foundation
/// Where to connect, and how to show that without leaking a password.
public enum ConnectionString {
    /// `--database-url`, else `DATABASE_URL`, else the empty string, which makes libpq use its own
    /// PG* variables, service file and ~/.pgpass.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let url = environment["DATABASE_URL"], !url.isEmpty { return url }
        return ""
    }

    /// The connection string with its password replaced by `***` (URL and key=value forms).
    ///
    /// It parses the string the way libpq does: the password of a URL's user information (which
    /// ends at the first `@` before any `/`), `password=` query parameters, and `password=` keywords,
    /// including single-quoted values with spaces and `\'` escapes. `sslpassword` is masked too.
    public static func masked(_ connection: String) -> String {
        var text = connection
        for secret in secrets(in: connection).reversed() {
            text.replaceSubrange(secret.range, with: "***")
        }
        return text
    }

    /// The password written in the connection string, if any (decoded), so messages can be scrubbed of it.
    static func password(in connection: String) -> String? {
        secrets(in: connection).first { $0.key == "password" }?.value
    }

    /// A secret value in a connection string: its keyword, where it is written, and what it means.
    private struct Secret {
        var key: String
        var range: Range<String.Index>
        var value: String
    }

    private static func secrets(in connection: String) -> [Secret] {
        if connection.hasPrefix("postgresql://") || connection.hasPrefix("postgres://") {
            return urlSecrets(connection)
        }
        return keywordSecrets(connection)
    }

    private static func isSecretKey(_ key: Substring) -> Bool {
        key.lowercased().hasSuffix("password")
    }

    private static func urlSecrets(_ url: String) -> [Secret] {
        guard let scheme = url.range(of: "://") else { return [] }
        var found: [Secret] = []
        var rest = scheme.upperBound
        // Like libpq: user information ends at the first "@" that comes before any "/".
        if let stop = url[rest...].firstIndex(where: { $0 == "@" || $0 == "/" }), url[stop] == "@" {
            let userInfo = url[rest..<stop]
            if let colon = userInfo.firstIndex(of: ":") {
                let range = userInfo.index(after: colon)..<stop
                found.append(Secret(key: "password", range: range, value: String(url[range]).percentDecoded()))
            }
            rest = url.index(after: stop)
        }
        if let question = url[rest...].firstIndex(of: "?") {
            for pair in url[url.index(after: question)...].split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let key = String(pair[..<equals]).percentDecoded()
                guard isSecretKey(Substring(key)) else { continue }
                let range = pair.index(after: equals)..<pair.endIndex
                found.append(Secret(key: key.lowercased(), range: range, value: String(url[range]).percentDecoded()))
            }
        }
        return found
    }

    /// `key = value` pairs separated by spaces; a value is bare or single-quoted, `\` escapes a character.
    private static func keywordSecrets(_ text: String) -> [Secret] {
        var found: [Secret] = []
        var index = text.startIndex
        func skipSpaces() {
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
        }
        while true {
            skipSpaces()
            guard index < text.endIndex else { break }
            let keyStart = index
            while index < text.endIndex, !text[index].isWhitespace, text[index] != "=" {
                index = text.index(after: index)
            }
            let key = text[keyStart..<index]
            skipSpaces()
            guard index < text.endIndex, text[index] == "=" else { break }
            index = text.index(after: index)
            skipSpaces()
            let valueStart = index
            var value = ""
            let quoted = index < text.endIndex && text[index] == "'"
            if quoted { index = text.index(after: index) }
            while index < text.endIndex {
                let character = text[index]
                if !quoted && character.isWhitespace { break }
                index = text.index(after: index)
                if quoted && character == "'" { break }
                if character == "\\", index < text.endIndex {
                    value.append(text[index])
                    index = text.index(after: index)
                } else {
                    value.append(character)
                }
            }
            if isSecretKey(key) {
                found.append(Secret(key: key.lowercased(), range: valueStart..<index, value: value))
            }
        }
        return found
    }
}

extension String {
    /// Decodes %XX escapes (URL user info); leaves malformed escapes as they are.
    func percentDecoded() -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(self.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
