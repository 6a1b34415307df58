/// A Swift value read from one or more consecutive columns of a row: a column's type (`String`,
/// `Int?` ...) takes one; a read model that spans several takes them in order through `cells`.
///
///     struct Contact: PostgresRowDecodable {
///         let email: String, phone: String?
///         init(cells: inout PostgresCells) throws(PostgresError) {
///             (email, phone) = (try cells.next(String.self), try cells.next(String?.self))
///         }
///     }
public protocol PostgresRowDecodable {
    /// Reads the value from the next columns of `cells`, moving past them.
    init(cells: inout PostgresCells) throws(PostgresError)
}

/// The columns of one row still to be read, left to right, by `PostgresRow.decode(_:)`.
public struct PostgresCells {
    let row: PostgresRow
    /// The column the next read takes.
    private(set) var index = 0

    init(_ row: PostgresRow) {
        self.row = row
    }

    /// The next column as `type`.
    public mutating func next<T: PostgresDecodable>(_ type: T.Type) throws(PostgresError) -> T {
        let value = try row.decode(type, index)
        index += 1
        return value
    }

    /// The next column as `type`, nil for NULL.
    public mutating func next<T: PostgresDecodable>(_ type: T?.Type) throws(PostgresError) -> T? {
        let value = try row.decode(type, index)
        index += 1
        return value
    }
}

extension PostgresDecodable {
    public init(cells: inout PostgresCells) throws(PostgresError) {
        self = try cells.next(Self.self)
    }
}

extension Array: PostgresRowDecodable where Element == Int {}

extension Optional: PostgresRowDecodable where Wrapped: PostgresDecodable {
    public init(cells: inout PostgresCells) throws(PostgresError) {
        self = try cells.next(Wrapped?.self)
    }
}

extension PostgresRow {
    /// The whole row as a tuple of its values, in column order:
    ///
    ///     let (id, name, note) = try row.decode((Int, String, String?).self)
    ///
    /// A value that does not decode throws as `decode(_:_:)` does, naming the column; a row with
    /// more or fewer columns than the types take throws a `.decoding` error too.
    public func decode<each T: PostgresRowDecodable>(
        _ types: (repeat each T).Type
    ) throws(PostgresError) -> (repeat each T) {
        var cells = PostgresCells(self)
        let row = (repeat try (each T)(cells: &cells))
        guard cells.index == values.count else {
            throw PostgresError(kind: .decoding, message: "the result has \(values.count) columns, "
                                + "not the \(cells.index) the Swift reads, in: \(statement)")
        }
        return row
    }
}
