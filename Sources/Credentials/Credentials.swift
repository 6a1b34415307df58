/// The secrets written in a connection string (a `scheme://` URL such as `postgresql://` or
/// `smtp://`, or libpq's `key=value` form), and the one way crubatch keeps them out of what it
/// shows: every form of every secret, as written, decoded and percent-encoded, becomes `***`.
///
/// Secrets are passwords and any other key ending in `password` (`sslpassword`): in a URL's user
/// information, in its query string, or as keywords; and in a URL's query string, the values of
/// parameters named like tokens, keys and signatures (`access_token`, `X-Amz-Signature`, `sig`). Parsing is generous, because a string that
/// fails to parse is exactly the one an error message echoes: in a URL the user information runs
/// to the last `@` before the query, so an unencoded `@ : / ? #` in a password stays inside it,
/// and a word without `=` right after a secret is taken as the rest of that secret.
public struct Credentials: Sendable {
    /// Every text that would give a secret away, longest first (so no part of one is left behind).
    private let forms: [[UInt8]]

    /// The secrets written in `connection`.
    public init(in connection: String) {
        let text = Array(connection.utf8)
        let secrets = Self.schemeEnd(text).map { Self.urlSecrets(text, from: $0) } ?? Self.keywordSecrets(text)
        self.init(forms: secrets.flatMap { [Array($0.written)] + Self.forms(of: $0.value) })
    }

    /// One secret known by its value (a password given on its own, not inside a URL).
    public init(secret: String) {
        self.init(forms: Self.forms(of: Array(secret.utf8)))
    }

    private init(forms: [[UInt8]]) {
        self.forms = Set(forms).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// A secret's value as it is and percent-encoded with either case of hex digits.
    private static func forms(of value: [UInt8]) -> [[UInt8]] {
        [value, PercentEncoding.encoded(value, hexDigits: PercentEncoding.upperHex),
         PercentEncoding.encoded(value, hexDigits: PercentEncoding.lowerHex)]
    }

    /// `text` (a message, or the connection string itself) with every secret replaced by `***`.
    public func scrub(_ text: String) -> String {
        guard !forms.isEmpty else { return text }
        var bytes = Array(text.utf8)
        for form in forms {
            bytes = Self.replacing(form, in: bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `connection` safe to show: its own secrets replaced by `***`.
    public static func masked(_ connection: String) -> String {
        Credentials(in: connection).scrub(connection)
    }

    // MARK: Parsing

    /// A secret as written in the string, and what it means (quotes, escapes and %XX undone).
    private struct Secret {
        var written: ArraySlice<UInt8>
        var value: [UInt8]
    }

    /// A piece of a query string or keyword list.
    private enum Piece {
        case pair(key: [UInt8], value: ArraySlice<UInt8>)
        /// Text without `=`: libpq refuses it, echoing it in its message.
        case word(ArraySlice<UInt8>)
    }

    /// Whether a keyword names a secret: libpq's `password` and `sslpassword`.
    private static func isSecretKeyword(_ key: String, value: ArraySlice<UInt8> = []) -> Bool {
        key.lowercased().hasSuffix("password")
    }

    /// What the names of secret query parameters end with, once lower-cased without `-` and `_`:
    /// passwords, tokens (`access_token`, `X-Amz-Security-Token`), keys (`key`, `api_key`),
    /// signatures (`sig`, `X-Amz-Signature`), credentials and secrets (`client_secret`).
    private static let secretQueryNameEndings = ["password", "passwd", "pwd", "token", "secret", "key", "sig",
                                                 "signature", "credential", "credentials", "auth"]

    /// Whether a query parameter carries a secret: a password, or a value of at least four
    /// characters under a name that looks secret (shorter ones, `auth=1`, are flags; masking them
    /// would mask every `1` in a message).
    static func isSecretQueryParameter(_ key: String, value: ArraySlice<UInt8>) -> Bool {
        let name = key.lowercased().filter { $0 != "-" && $0 != "_" }
        return isSecretKeyword(name) || (value.count >= 4 && secretQueryNameEndings.contains { name.hasSuffix($0) })
    }

    /// The value of every secret key, and every word right after a secret (its unencoded rest).
    private static func secrets(among pieces: [Piece], decode: (ArraySlice<UInt8>) -> [UInt8],
                                isSecret: (String, ArraySlice<UInt8>) -> Bool) -> [Secret] {
        var found: [Secret] = []
        var afterSecret = false
        for piece in pieces {
            switch piece {
            case .pair(let key, let value):
                afterSecret = isSecret(String(decoding: key, as: UTF8.self), value)
                if afterSecret { found.append(Secret(written: value, value: decode(value))) }
            case .word(let text):
                if afterSecret { found.append(Secret(written: text, value: Array(text))) }
            }
        }
        return found
    }

    /// Where a URL's scheme ends (just after `://`), or nil for the `key=value` form.
    private static func schemeEnd(_ text: [UInt8]) -> Int? {
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              text[..<colon].allSatisfy({ isLetterOrDigit($0) || "+-.".utf8.contains($0) }),
              text[colon...].starts(with: "://".utf8) else { return nil }
        return colon + 3
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// The password of the user information, then the secret query parameters.
    private static func urlSecrets(_ url: [UInt8], from start: Int) -> [Secret] {
        let query = queryStart(url, from: start)
        var found: [Secret] = []
        if let at = url[start..<(query ?? url.endIndex)].lastIndex(of: UInt8(ascii: "@")),
           let colon = url[start..<at].firstIndex(of: UInt8(ascii: ":")) {
            let written = url[(colon + 1)..<at]
            found.append(Secret(written: written, value: PercentEncoding.decoded(written)))
        }
        guard let query else { return found }
        let pieces = url[(query + 1)...].split(separator: UInt8(ascii: "&")).map { pair -> Piece in
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return .word(pair) }
            return .pair(key: PercentEncoding.decoded(pair[..<equals]), value: pair[(equals + 1)...])
        }
        return found + secrets(among: pieces, decode: PercentEncoding.decoded, isSecret: isSecretQueryParameter)
    }

    /// The `?` that starts the query: the first one after a plausible host list and path. A `?`
    /// after text that is no host (`u:pa`, whose port is not a number) belongs to a password.
    private static func queryStart(_ url: [UInt8], from start: Int) -> Int? {
        var from = start
        while let question = url[from...].firstIndex(of: UInt8(ascii: "?")) {
            let before = url[start..<question]
            let hostAndPath = before.lastIndex(of: UInt8(ascii: "@")).map { before[($0 + 1)...] } ?? before
            let hosts = hostAndPath.firstIndex(of: UInt8(ascii: "/")).map { hostAndPath[..<$0] } ?? hostAndPath
            if hosts.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).allSatisfy(isHostAndPort) {
                return question
            }
            from = question + 1
        }
        return nil
    }

    /// `name`, `name:5432`, `[::1]:5432`, or empty (the default host).
    private static func isHostAndPort(_ text: ArraySlice<UInt8>) -> Bool {
        var host = text
        var port: ArraySlice<UInt8> = []
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return false }
            host = []
            port = text[(close + 1)...]
            if let colon = port.first {
                guard colon == UInt8(ascii: ":") else { return false }
                port = port.dropFirst()
            }
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            host = text[..<colon]
            port = text[(colon + 1)...]
        }
        return host.allSatisfy { isLetterOrDigit($0) || "._-%".utf8.contains($0) }
            && port.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `key = value` pairs separated by white space; a value is bare or single-quoted, `\` escapes.
    private static func keywordSecrets(_ text: [UInt8]) -> [Secret] {
        var pieces: [Piece] = []
        var index = text.startIndex
        func skipSpaces() {
            while index < text.endIndex, isSpace(text[index]) { index += 1 }
        }
        while true {
            skipSpaces()
            guard index < text.endIndex else { break }
            let keyStart = index
            while index < text.endIndex, !isSpace(text[index]), text[index] != UInt8(ascii: "=") { index += 1 }
            let key = text[keyStart..<index]
            skipSpaces()
            guard index < text.endIndex, text[index] == UInt8(ascii: "=") else {
                pieces.append(.word(key))
                continue
            }
            index += 1
            skipSpaces()
            let valueStart = index
            let quoted = index < text.endIndex && text[index] == UInt8(ascii: "'")
            if quoted { index += 1 }
            while index < text.endIndex {
                let byte = text[index]
                if !quoted && isSpace(byte) { break }
                index = min(index + (byte == UInt8(ascii: "\\") ? 2 : 1), text.endIndex)
                if quoted && byte == UInt8(ascii: "'") { break }
            }
            pieces.append(.pair(key: Array(key), value: text[valueStart..<index]))
        }
        return secrets(among: pieces, decode: unquoted, isSecret: isSecretKeyword)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// A keyword value without its single quotes and with `\` escapes undone.
    private static func unquoted(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var body = value
        if body.first == UInt8(ascii: "'") {
            body = body.dropFirst()
            if body.last == UInt8(ascii: "'") { body = body.dropLast() }
        }
        var result: [UInt8] = []
        var escaped = false
        for byte in body {
            if !escaped && byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            result.append(byte)
            escaped = false
        }
        return result
    }

    private static func replacing(_ form: [UInt8], in text: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            if text[index...].starts(with: form) {
                result += "***".utf8
                index += form.count
            } else {
                result.append(text[index])
                index += 1
            }
        }
        return result
    }
}
