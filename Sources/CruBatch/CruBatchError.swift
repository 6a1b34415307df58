import CSVStream
import FileOutput
import PostgresClient
import SpreadsheetReader

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

    public var exitStatus: ExitStatus {
        switch self {
        case .fileNotFound: .noInput
        case .unreadable: .dataError
        case .schemaOutOfDate, .migrationChanged, .migrationBlocked: .dataError
        case .lockHeld: .temporaryFailure
        case .usage: .usage
        case .refused: .rejected
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
        }
    }
}

extension PostgresError: CommandFailure {
    /// What a database failure means for the person running crubatch.
    enum Meaning {
        /// The server is down, unreachable, shutting down or out of resources: try later (69).
        case unavailable
        /// Another run holds what this one needs, or a deadlock was broken: retry (75).
        case temporary
        /// crubatch's own SQL failed or its result did not decode: a bug (70).
        case bug
    }

    /// SQLSTATEs that mean "try again": serialization failure, deadlock, lock not available.
    static let temporaryStates: Set<String> = ["40001", "40P01", "55P03"]

    var meaning: Meaning {
        switch kind {
        case .connection: return .unavailable
        case .lockNotAvailable: return .temporary
        case .query, .copy:
            guard let sqlState else { return .unavailable }
            if Self.temporaryStates.contains(sqlState) { return .temporary }
            // Connection exceptions, operator intervention (shutdown), insufficient resources.
            if sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState.hasPrefix("53") { return .unavailable }
            return .bug
        case .decoding: return .bug
        }
    }

    public var exitStatus: ExitStatus {
        switch meaning {
        case .unavailable: .unavailable
        case .temporary: .temporaryFailure
        case .bug: .software
        }
    }

    public var errorCode: String {
        switch meaning {
        case .unavailable: "database-unavailable"
        case .temporary: "temporary-failure"
        case .bug: "internal-error"
        }
    }

    public var commandMessage: String {
        switch meaning {
        case .unavailable: description
        case .temporary: "\(description); another run holds what this one needs, try again"
        case .bug: "this is a bug in crubatch: \(description); please report it with the command you ran"
        }
    }
}

extension OutputError: CommandFailure {
    public var exitStatus: ExitStatus { .cannotCreate }
    public var errorCode: String { "cannot-write-output" }
    public var commandMessage: String { description }
}

extension FileOpenError: CommandFailure {
    public var exitStatus: ExitStatus {
        switch self {
        case .notFound: .noInput
        case .unreadable: .dataError
        }
    }

    public var errorCode: String {
        switch self {
        case .notFound: "file-not-found"
        case .unreadable: "unreadable-input"
        }
    }

    public var commandMessage: String { description }
}

extension WorkbookError: CommandFailure {
    public var exitStatus: ExitStatus { isFileProblem ? .dataError : .usage }
    public var errorCode: String { isFileProblem ? "unreadable-input" : "usage" }
    public var commandMessage: String { description }
}
