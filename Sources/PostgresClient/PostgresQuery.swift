/// A statement and its parameters, written as one string: interpolated values become `$1, $2 …`
/// binds, never text spliced into the SQL.
///
///     let query: PostgresQuery = "select id from people where lower(email) = \(email) and campus_id = \(campusID)"
///
/// SQL fragments that crubatch builds itself go in as `SQLFragment`s with `\(unescaped: fragment)`, and
/// a name as `\(identifier: name)`, double-quoted.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var sql: String
    public private(set) var binds: [String?]

    /// A statement built at run time from crubatch's own SQL, with binds already numbered.
    public init(unsafeSQL sql: String, binds: [String?] = []) {
        self.sql = sql
        self.binds = binds
    }

    /// A statement crubatch wrote itself, without parameters.
    public init(_ fragment: SQLFragment) {
        self.init(unsafeSQL: fragment.sql)
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// The SQL text (binds are not shown: they may hold personal data).
    public var description: String { sql }

    /// The SQL text with each `$n` replaced by `replacement(n)`, in one scan from left to right, so
    /// that what one replacement writes (a bind holding `$1`) is never read as a placeholder.
    func replacingPlaceholders(_ replacement: (Int) -> String) -> String {
        var result = ""
        var text = Substring(sql)
        while let dollar = text.firstIndex(of: "$") {
            result += text[..<dollar]
            let digits = text[text.index(after: dollar)...].prefix { $0.isASCII && $0.isNumber }
            result += Int(digits).map(replacement) ?? "$"
            text = text[text.index(dollar, offsetBy: 1 + digits.count)...]
        }
        return result + text
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds: [String?] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value, sent as a bind parameter in text form.
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(value.postgresText)
            sql += "$\(binds.count)"
        }

        /// An optional value; nil is NULL.
        public mutating func appendInterpolation(_ value: (some PostgresEncodable)?) {
            binds.append(value?.postgresText)
            sql += "$\(binds.count)"
        }

        /// Another query as a fragment (a condition built elsewhere): its text is spliced in and its
        /// binds renumbered to follow this query's.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = binds.count
            binds += fragment.binds
            sql += fragment.replacingPlaceholders { "$\($0 + offset)" }
        }

        /// A fragment of crubatch's own SQL (literal text, quoted names), spliced in as text.
        public mutating func appendInterpolation(unescaped fragment: SQLFragment) {
            sql += fragment.sql
        }

        /// A name (table, column, database), double-quoted as `SQLFragment(identifier:)` does.
        public mutating func appendInterpolation(identifier name: String) {
            sql += SQLFragment(identifier: name).sql
        }
    }
}

/// A Swift value that can be sent as a query parameter, in PostgreSQL's text form.
public protocol PostgresEncodable: Sendable {
    var postgresText: String { get }
}

extension String: PostgresEncodable {
    public var postgresText: String { self }
}

extension Int: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Double: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Bool: PostgresEncodable {
    public var postgresText: String { self ? "true" : "false" }
}

/// Arrays go as array literals (`{1,2}`, `{"a","b"}`), to be cast in SQL (`$1::bigint[]`).
extension Array: PostgresEncodable where Element: PostgresEncodable {
    public var postgresText: String {
        "{" + map { element in
            let text = element.postgresText
            guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else {
                return "\"" + text + "\""
            }
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }
}

/// A Swift value that a column's text form decodes to.
public protocol PostgresDecodable: PostgresRowDecodable {
    /// The value for PostgreSQL's text output, or nil when the text is not of this type.
    init?(postgresText: String)
}

extension String: PostgresDecodable {
    public init?(postgresText: String) { self = postgresText }
}

extension Int: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Int64: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Double: PostgresDecodable {
    public init?(postgresText: String) { self.init(postgresText) }
}

extension Bool: PostgresDecodable {
    public init?(postgresText: String) {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }
}

/// An integer array's text form (`{1,2,3}`), as `array_agg` of an integer column gives it.
extension Array: PostgresDecodable where Element == Int {
    public init?(postgresText: String) {
        guard postgresText.hasPrefix("{"), postgresText.hasSuffix("}") else { return nil }
        let items = postgresText.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        if items == [""] {
            self = []
            return
        }
        var values: [Int] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard let value = Int(item) else { return nil }
            values.append(value)
        }
        self = values
    }
}
