import FileOutput
import CSVStream
import PostgresClient

/// The exit statuses of DESIGN.md section 2 (sysexits), so cron and scripts can act on them.
public enum ExitStatus: Int32, Sendable {
    case ok = 0
    case rejected = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case temporaryFailure = 75
}

/// Everything that can stop a crubatch command, each with the exit status it means.
public enum CruBatchError: Error, CustomStringConvertible {
    case database(PostgresError)
    case fileNotFound(String)
    case unreadable(String)
    case output(OutputError)
    case schemaOutOfDate(pending: [Int])
    case migrationChanged(version: Int, name: String)
    case lockHeld(String)
    case usage(String)

    public var exitStatus: ExitStatus {
        switch self {
        case .database(let error):
            switch error.kind {
            case .connection: .unavailable
            case .lockNotAvailable: .temporaryFailure
            case .query, .copy: .dataError
            }
        case .fileNotFound: .noInput
        case .unreadable: .dataError
        case .output: .cannotCreate
        case .schemaOutOfDate, .migrationChanged: .dataError
        case .lockHeld: .temporaryFailure
        case .usage: .usage
        }
    }

    public var description: String {
        switch self {
        case .database(let error): error.description
        case .fileNotFound(let path): "\(path): no such file"
        case .unreadable(let reason): reason
        case .output(let error): error.description
        case .schemaOutOfDate(let pending):
            "the database schema is out of date (migrations \(pending.map(String.init).joined(separator: ", ")) not applied); run `crubatch migrate`"
        case .migrationChanged(let version, let name):
            "migration \(version) (\(name)) was changed after it was applied; restore its text or write a new migration"
        case .lockHeld(let what): "\(what) is running in another process; try again later"
        case .usage(let message): message
        }
    }

    /// Wraps any error thrown below the command layer.
    public static func wrap(_ error: Error) -> CruBatchError {
        switch error {
        case let error as CruBatchError: error
        case let error as PostgresError: .database(error)
        case let error as OutputError: .output(error)
        case let error as FileOpenError:
            if case .notFound(let path) = error { .fileNotFound(path) } else { .unreadable(error.description) }
        default: .unreadable(String(describing: error))
        }
    }
}
