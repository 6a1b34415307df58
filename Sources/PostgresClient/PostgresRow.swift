/// One row of a result, decoded column by column into Swift types.
///
///     let (id, name) = try row.decode((Int, String?).self)
///     let email = try row.decode(String.self, "email")
///
/// A NULL where a non-optional type is asked for, or text that is not of the type, throws a
/// `.decoding` error naming the column and the query: a mismatch between crubatch's SQL and its
/// Swift, never bad user data.
public struct PostgresRow: Sendable {
    public let columns: [String]
    /// The text of each column, nil for NULL.
    public let values: [String?]
    let query: String

    /// The value of column `index` as `type` (an optional type accepts NULL).
    public func decode<T: PostgresDecodable>(_ type: T.Type, _ index: Int) throws(PostgresError) -> T {
        guard let text = try text(index) else { throw mismatch(index, "is NULL, expected \(T.self)") }
        guard let value = T(postgresText: text) else { throw mismatch(index, "is not \(T.self)") }
        return value
    }

    public func decode<T: PostgresDecodable>(_ type: T?.Type, _ index: Int) throws(PostgresError) -> T? {
        guard let text = try text(index) else { return nil }
        guard let value = T(postgresText: text) else { throw mismatch(index, "is not \(T.self)") }
        return value
    }

    /// The value of the column named `column`.
    public func decode<T: PostgresDecodable>(_ type: T.Type, _ column: String) throws(PostgresError) -> T {
        try decode(type, index(of: column))
    }

    public func decode<T: PostgresDecodable>(_ type: T?.Type, _ column: String) throws(PostgresError) -> T? {
        try decode(type, index(of: column))
    }

    private func text(_ index: Int) throws(PostgresError) -> String? {
        guard values.indices.contains(index) else { throw mismatch(index, "does not exist") }
        return values[index]
    }

    /// The query on one line, for messages.
    var statement: String {
        query.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private func index(of column: String) throws(PostgresError) -> Int {
        guard let index = columns.firstIndex(of: column) else {
            throw PostgresError(kind: .decoding, message: "no column \"\(column)\" in the result of: \(statement)")
        }
        return index
    }

    private func mismatch(_ index: Int, _ what: String) -> PostgresError {
        let name = columns.indices.contains(index) ? "\"\(columns[index])\"" : "#\(index + 1)"
        return PostgresError(kind: .decoding, message: "column \(name) \(what) in the result of: \(statement)")
    }
}
