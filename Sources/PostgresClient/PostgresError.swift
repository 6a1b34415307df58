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
    /// The connection was open and the server went away under it (a failover, a restart, a
    /// terminated backend), as opposed to one that could not be opened: what it had not committed
    /// is rolled back, and the same work can be tried again at once.
    public var connectionLost = false

    /// The connection is lost, or the server turned read-only under it (SQLSTATE 25006: a primary
    /// demoted by a failover): the work belongs on the new primary, through a new connection.
    public var primaryLost: Bool { connectionLost || sqlState == "25006" }

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
