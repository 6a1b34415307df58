import Foundation

/// A command's result for people (`text`) and for scripts (one JSON document). Every command's
/// document has `"format": 1` (bumped only when a field changes meaning or goes away), the
/// command's name, and snake_case field names shared across commands (`exit_status`, `dry_run` ...).
public protocol CommandReport: Encodable {
    /// The text printed on stdout (a table, a sentence).
    var text: String { get }
}

/// Writes reports and errors as versioned JSON documents.
public enum ReportDocument {
    /// The version of every document's layout.
    public static let formatVersion = 1

    /// `{"format": 1, "command": "status", ...the report's own fields}`.
    public static func json(_ report: some Encodable, command: String) -> String {
        JSONOutput.encode(Envelope(command: command, body: report))
    }

    /// `{"format": 1, "command": "...", "error": {"code": "database-unavailable", "exit": 69, "message": "..."}}`.
    public static func json(error: some CommandFailure, command: String) -> String {
        JSONOutput.encode(Envelope(command: command, body: ErrorBody(error: .init(
            code: error.errorCode, exit: Int(error.exitStatus.rawValue), message: error.commandMessage))))
    }

    /// The same for a failure that is not one of crubatch's own errors (a bug, exit 70).
    public static func json(unexpected message: String, command: String) -> String {
        JSONOutput.encode(Envelope(command: command, body: ErrorBody(error: .init(
            code: "internal-error", exit: Int(ExitStatus.software.rawValue), message: message))))
    }

    private struct Envelope<Body: Encodable>: Encodable {
        let command: String
        let body: Body

        enum Keys: String, CodingKey { case format, command }

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(ReportDocument.formatVersion, forKey: .format)
            try container.encode(command, forKey: .command)
        }
    }

    private struct ErrorBody: Encodable {
        struct Details: Encodable {
            let code: String
            let exit: Int
            let message: String
        }

        let error: Details
    }
}
