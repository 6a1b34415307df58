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
        Exit codes: 0 ok; 1 rows rejected or validation failed; 64 usage; 65 unreadable data;
        66 file not found; 69 database or SMTP unavailable; 70 a bug in crubatch; 73 cannot write output;
        75 temporary (locked, deadlock), retry later; 78 SMTP credentials refused.
        """,
        version: CruBatchVersion.current,
        subcommands: [MigrateCommand.self, ImportCommand.self, ValidateCommand.self, ExportCommand.self, NightlyCommand.self, NotifyCommand.self, PlaceCommand.self, RunsCommand.self, StatusCommand.self]
    )
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

/// Runs a command body, turning every failure into its message on stderr and its exit status.
func runReportingErrors(_ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch let failure as any CommandFailure {
        printError("crubatch: \(failure.commandMessage)")
        status = failure.exitStatus
    } catch {
        // Every error crubatch raises maps itself above; anything else escaped that mapping.
        printError("crubatch: this is a bug in crubatch: unexpected \(type(of: error)): \(error)")
        status = .software
    }
    if status != .ok { throw ExitCode(status.rawValue) }
}

func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
