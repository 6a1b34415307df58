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
    public static func masked(_ connection: String) -> String {
        var text = connection
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") {
            let userInfo = text[scheme.upperBound..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        return maskKeywordPassword(maskQueryPassword(text))
    }

    /// The password written in the connection string, if any, so messages can be scrubbed of it.
    static func password(in connection: String) -> String? {
        if let scheme = connection.range(of: "://"), let at = connection[scheme.upperBound...].firstIndex(of: "@") {
            let userInfo = connection[scheme.upperBound..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                return String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding()
            }
        }
        for part in connection.split(whereSeparator: { $0 == " " || $0 == "&" || $0 == "?" }) {
            if part.hasPrefix("password=") { return String(part.dropFirst("password=".count)) }
        }
        return nil
    }

    private static func maskQueryPassword(_ text: String) -> String {
        replacingValue(of: "password=", in: text, separators: ["&", " "])
    }

    private static func maskKeywordPassword(_ text: String) -> String {
        replacingValue(of: "password = ", in: text, separators: [" "])
    }

    private static func replacingValue(of key: String, in text: String, separators: Set<Character>) -> String {
        var result = text
        var searchStart = result.startIndex
        while let range = result.range(of: key, range: searchStart..<result.endIndex) {
            let valueEnd = result[range.upperBound...].firstIndex { separators.contains($0) } ?? result.endIndex
            result.replaceSubrange(range.upperBound..<valueEnd, with: "***")
            searchStart = result.index(range.upperBound, offsetBy: 3, limitedBy: result.endIndex) ?? result.endIndex
        }
        return result
    }
}

extension String {
    /// Decodes %XX escapes (URL user info); leaves malformed escapes as they are.
    func removingPercentEncoding() -> String {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
