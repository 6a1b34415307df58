import ArgumentParser
import CruBatch
import Foundation
import PostgresClient

/// The `crubatch` command: parses arguments and hands the work to the CruBatch library.
@main
struct CruBatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crubatch",
        abstract: "Load, check, export and notify: the batch toolkit behind Cru's campus-ministry app.",
        discussion: """
        Connection: --database-url, else DATABASE_URL, else libpq's PG* variables, service file and ~/.pgpass.

        Every command takes --quiet (nothing printed on success; errors and warnings still go to stderr) and --format json (one versioned document on stdout, also for errors).

        Exit codes: 0 ok; 1 rows rejected or validation failed; 64 usage; 65 unreadable data; 66 file not found; 69 database or SMTP unavailable; 70 a bug in crubatch; 73 cannot write output; 75 temporary (locked, deadlock), retry later; 78 SMTP credentials refused.
        """,
        version: CruBatchVersion.current,
        subcommands: [MigrateCommand.self, ImportCommand.self, ValidateCommand.self, ExportCommand.self, NightlyCommand.self, NotifyCommand.self, PlaceCommand.self, RidesCommand.self, RunsCommand.self, UndoCommand.self, ForgetCommand.self, StatusCommand.self]
    )

    /// `crubatch help NAME` for a command that does not exist is a usage error (exit 64) listing the
    /// commands, not the general help with exit 0.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = configuration.subcommands.map { $0._commandName }
        if arguments.first == "help", let name = arguments.dropFirst().first, !name.hasPrefix("-"), !names.contains(name) {
            printError("crubatch: no command \"\(name)\"; the commands are: \(names.joined(separator: ", "))")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        main(nil)
    }
}

/// Options every database command shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"),
            help: "PostgreSQL URL, e.g. postgresql://user@host:5432/cru (default: DATABASE_URL, then PG* variables).")
    var databaseURL: String?

    func connect() throws -> PostgresConnection {
        let url = ConnectionString.resolve(explicit: databaseURL, environment: ProcessInfo.processInfo.environment)
        return try PostgresConnection(url)
    }
}
