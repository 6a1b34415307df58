import ArgumentParser
import CruBatch

struct MigrateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations built into crubatch (safe to re-run).",
        discussion: """
        Pending migrations run in one transaction under an advisory lock and are recorded in schema_migrations with a checksum. A second run changes nothing. A migration whose text changed after it was applied is refused.

        Examples:
          crubatch migrate
          crubatch migrate --status
          crubatch migrate --quiet          (for a deploy script: silent unless something fails)
        """
    )

    @Flag(help: "List the migrations and whether each is applied; change nothing.")
    var status = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("migrate") }

    func report(to console: Console) throws -> ExitStatus {
        let migrator = Migrator(connection: try database.connect())
        let applied = status ? [] : try migrator.migrate()
        return console.finish(MigrateReport(applied: applied, migrations: try migrator.status(), listing: status))
    }
}
