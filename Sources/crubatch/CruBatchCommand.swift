import ArgumentParser
import CruBatch
import FileOutput
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
        subcommands: [MigrateCommand.self, ImportCommand.self, ValidateCommand.self, ExportCommand.self, NightlyCommand.self, NotifyCommand.self, PlaceCommand.self, RidesCommand.self, PeopleCommand.self, RunsCommand.self, UndoCommand.self, ForgetCommand.self, StatusCommand.self, StaffCommand.self, ServeCommand.self]
    )

    /// Parses and runs the command. A usage error (an unknown command, option or value, or a
    /// value the command refuses) exits 64 with its message on stderr and, under `--format json`,
    /// the JSON error object on stdout as every other failure has. A command that does not exist
    /// (`crubatch NAME` or `crubatch help NAME`) is such an error, listing the commands; help for it
    /// is not the general help with exit 0.
    static func main() {
        StandardStream.holdClosedDescriptors()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        // The command named, `help NAME`'s name first: a word that names none is a usage error.
        let named = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        if let name = named, !name.hasPrefix("-"), !names.contains(name) {
            exitWithUsageError("no command \"\(name)\"; the commands are: \(names.joined(separator: ", "))",
                               arguments: arguments)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            // A failure inside a command has already printed itself (`Console.run`) and ends as its
            // ExitCode; help and --version end with status 0.
            if !(error is ExitCode) && exitCode(for: error) != .success && wantsJSON(arguments) {
                printLine(ReportDocument.json(error: CruBatchError.usage(message(for: error)),
                                              command: commandPath(arguments)))
            }
            exit(withError: error)
        }
    }

    private static func exitWithUsageError(_ message: String, arguments: [String]) -> Never {
        printError("crubatch: \(message)")
        if wantsJSON(arguments) {
            printLine(ReportDocument.json(error: CruBatchError.usage(message), command: commandPath(arguments)))
        }
        Foundation.exit(ExitStatus.usage.rawValue)
    }

    /// Whether the arguments ask for `--format json`, read without the parser: a usage error may
    /// have stopped the parser before it reached that option.
    static func wantsJSON(_ arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" }
            || arguments.contains("--format=json")
    }

    /// The command the arguments name as far as they name one ("rides pair", "undo"), for the
    /// JSON document of a usage error; "crubatch" when they name none.
    static func commandPath(_ arguments: [String]) -> String {
        var path: [String] = []
        var command: any ParsableCommand.Type = CruBatchCommand.self
        for argument in arguments {
            guard let next = command.configuration.subcommands.first(where: {
                $0.configuration.commandName == argument
            }) else { break }
            path.append(argument)
            command = next
        }
        return path.isEmpty ? "crubatch" : path.joined(separator: " ")
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

/// `--read-only-url`: where the exports read, so a standby carries the heavy reads.
struct ReadOnlyDatabaseOptions: ParsableArguments {
    @Option(name: .customLong("read-only-url"),
            help: ArgumentHelp("Read from this server instead, e.g. a standby (postgresql://h2:5432/cru), or several with target_session_attrs=prefer-standby; everything is read in one snapshot.",
                               valueName: "url"))
    var readOnlyURL: String?

    /// A connection to the `--read-only-url` server, if one is given.
    func connect() throws -> PostgresConnection? {
        try readOnlyURL.map { try PostgresConnection($0) }
    }
}
