/// The exit statuses crubatch uses (sysexits), so cron and scripts can act on them.
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    case rejected = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    /// A defect in crubatch itself (its own SQL failed, a result had an unexpected shape).
    case software = 70
    case cannotCreate = 73
    case temporaryFailure = 75
    /// A setting is wrong (the mail server refused the credentials).
    case configuration = 78
}

/// An error that knows what it means at the command line: the exit status and one line for people.
/// Every error type that can reach `main` conforms, each with an exhaustive mapping of its own cases.
public protocol CommandFailure: Error {
    var exitStatus: ExitStatus { get }
    /// A stable, kebab-case name for scripts (`database-unavailable`, `file-not-found` ...).
    var errorCode: String { get }
    /// One line for stderr (no personal data, no password).
    var commandMessage: String { get }
}

/// What stops a crubatch command that is not an error of a lower module.
public enum CruBatchError: Error, CustomStringConvertible, CommandFailure {
    case fileNotFound(String)
    /// An input that cannot be read as what it should be (exit 65).
    case unreadable(String)
    case schemaOutOfDate(pending: [Int])
    case migrationChanged(version: Int, name: String)
    /// Rows already stored break a rule the migration adds; nothing was applied.
    case migrationBlocked(version: Int, name: String, reason: String)
    case lockHeld(String)
    case usage(String)
    /// A request crubatch will not carry out as it stands, and says why (exit 1).
    case refused(String)
    /// The database user lacks a right crubatch needs, which an administrator grants (exit 78).
    case privileges(String)

    public var exitStatus: ExitStatus {
        switch self {
        case .fileNotFound: .noInput
        case .unreadable: .dataError
        case .schemaOutOfDate, .migrationChanged, .migrationBlocked: .dataError
        case .lockHeld: .temporaryFailure
        case .usage: .usage
        case .refused: .rejected
        case .privileges: .configuration
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let path): "\(path): no such file"
        case .unreadable(let reason): reason
        case .schemaOutOfDate(let pending):
            "the database schema is out of date (migrations \(pending.map(String.init).joined(separator: ", ")) not applied); run `crubatch migrate`"
        case .migrationChanged(let version, let name):
            "migration \(version) (\(name)) was changed after it was applied; restore its text or write a new migration"
        case .migrationBlocked(let version, let name, let reason):
            "migration \(version) (\(name)) was not applied: \(reason)"
        case .lockHeld(let what): "\(what) is running in another process; try again later"
        case .usage(let message): message
        case .refused(let reason): reason
        case .privileges(let reason): reason
        }
    }

    public var commandMessage: String { description }

    public var errorCode: String {
        switch self {
        case .fileNotFound: "file-not-found"
        case .unreadable: "unreadable-input"
        case .schemaOutOfDate: "schema-out-of-date"
        case .migrationChanged: "migration-changed"
        case .migrationBlocked: "migration-blocked"
        case .lockHeld: "locked"
        case .usage: "usage"
        case .refused: "refused"
        case .privileges: "database-privileges"
        }
    }
}
