/// A failure talking to PostgreSQL: what kind, the server's SQLSTATE when there is one, and a
/// one-line message with any password masked.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// Broad categories callers act on (exit 69 for `connection`, 75 for `lockNotAvailable`).
    public enum Kind: Sendable, Equatable {
        case connection
        case query
        case copy
        case lockNotAvailable
        /// A result did not have the shape the Swift code expected (a NULL, a type, a column).
        case decoding
    }

    public var kind: Kind
    /// The five-character SQLSTATE (`23505` unique violation, `57014` query canceled ...), if the server sent one.
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    public var description: String {
        var text = message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += ": \(detail)" }
        return text
    }
}
