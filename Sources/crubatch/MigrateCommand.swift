import ArgumentParser
import CruBatch

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations built into crubatch (safe to re-run).",
        discussion: """
        Pending migrations run in one transaction under an advisory lock and are recorded in
        schema_migrations with a checksum. A second run changes nothing. A migration whose text
        changed after it was applied is refused.

        Example:
          crubatch migrate
          crubatch migrate --status
        """
    )

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "List the migrations and whether each is applied; change nothing.")
    var status = false

    func run() throws {
        try runReportingErrors {
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            if status {
                printLine(MigrationStatus.table(try migrator.status()))
                return .ok
            }
            let applied = try migrator.migrate()
            if applied.isEmpty {
                printLine("schema is up to date (\(Migration.all.count) migrations applied)")
            } else {
                for migration in applied { printLine("applied \(migration.version): \(migration.name)") }
            }
            return .ok
        }
    }
}
