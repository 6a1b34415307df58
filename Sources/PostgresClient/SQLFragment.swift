/// A piece of SQL that crubatch wrote itself: a string literal in its source, a double-quoted
/// identifier, or fragments joined from those. `\(unescaped:)` in a `PostgresQuery` splices one in
/// as text; since a fragment cannot be made from a run-time `String`, a cell or an argument cannot
/// reach the SQL unquoted.
///
///     let current: SQLFragment = "\(identifier: alias).ended_at is null"
public struct SQLFragment: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var sql: String

    /// Literal SQL: `StaticString`, so only text written in the source qualifies.
    public init(stringLiteral value: StaticString) {
        sql = value.description
    }

    public init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
    }

    /// A name (table, column, database, channel), double-quoted with embedded quotes doubled, so
    /// whatever it holds stays one identifier.
    public init(identifier name: String) {
        sql = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A text constant as a string literal, its quotes doubled; an `E''` literal when it holds a
    /// backslash, so that it reads the same whatever `standard_conforming_strings` says.
    public init(literal text: String) {
        let quoted = text.replacingOccurrences(of: "'", with: "''")
        sql = text.contains("\\") ? "E'\(quoted.replacingOccurrences(of: "\\", with: "\\\\"))'" : "'\(quoted)'"
    }

    /// Fragments one after another with `separator` between them (`, `, ` and `, ` union all `).
    public init(joining fragments: some Sequence<SQLFragment>, separator: SQLFragment) {
        sql = fragments.map(\.sql).joined(separator: separator.sql)
    }

    public var description: String { sql }

    /// Builds a fragment from literal text, other fragments, identifiers and integers.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 8 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            sql += literal.description
        }

        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            sql += fragment.sql
        }

        /// A name, quoted as `SQLFragment(identifier:)` does.
        public mutating func appendInterpolation(identifier name: String) {
            sql += SQLFragment(identifier: name).sql
        }

        /// A text constant, quoted as `SQLFragment(literal:)` does.
        public mutating func appendInterpolation(literal text: String) {
            sql += SQLFragment(literal: text).sql
        }

        /// An integer written in decimal: no text of it can be SQL.
        public mutating func appendInterpolation(_ number: Int) {
            sql += String(number)
        }
    }
}
