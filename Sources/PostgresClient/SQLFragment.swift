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

    /// A name (table, column, database, channel) as PostgreSQL's `quote_ident` writes it: bare when it
    /// is a plain lower-case name that is not a keyword (`people`, `first_name`), otherwise
    /// double-quoted with embedded quotes doubled (`"group"`, `"We ird"`), so whatever it holds stays
    /// one identifier.
    public init(identifier name: String) {
        sql = Self.isPlainName(name) ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A name that needs no quotes: lower-case ASCII letters, digits and `_`, not starting with a
    /// digit, and not one of PostgreSQL's keywords that cannot stand as a column name.
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        let plain = name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return plain && !reservedWords.contains(name)
    }

    /// `select word from pg_get_keywords() where catcode <> 'U'` on PostgreSQL 15: the keywords a
    /// bare column name may not be.
    private static let reservedWords: Set<String> = Set("""
        all analyse analyze and any array as asc asymmetric authorization between bigint binary bit boolean both \
        case cast char character check coalesce collate collation column concurrently constraint create cross \
        current_catalog current_date current_role current_schema current_time current_timestamp current_user dec \
        decimal default deferrable desc distinct do else end except exists extract false fetch float for foreign \
        freeze from full grant greatest group grouping having ilike in initially inner inout int integer intersect \
        interval into is isnull join lateral leading least left like limit localtime localtimestamp national natural \
        nchar none normalize not notnull null nullif numeric offset on only or order out outer overlaps overlay \
        placing position precision primary real references returning right row select session_user setof similar \
        smallint some substring symmetric table tablesample then time timestamp to trailing treat trim true union \
        unique user using values varchar variadic verbose when where window with xmlattributes xmlconcat \
        xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
        """.split(separator: " ").map(String.init))

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
