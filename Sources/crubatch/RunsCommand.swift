import ArgumentParser
import CruBatch

struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List recent runs (imports, place, forget), or show what one run changed.",
        discussion: """
        Examples:
          crubatch runs --limit 5
          crubatch runs show 12
          crubatch runs show 12 --rows
        """,
        subcommands: [RunsListCommand.self, RunsShowCommand.self],
        defaultSubcommand: RunsListCommand.self)
}

struct RunsListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List recent runs: kind, file, outcome and what each wrote (a killed run shows as 'killed', an undone one as 'undone').")

    @Option(help: "How many runs to show.") var limit = 20
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    var console: Console { output.console("runs") }

    func report(to console: Console) throws -> ExitStatus {
        console.finish(try ImportRuns.load(limit, from: database.connect()))
    }
}

struct RunsShowCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show what one run changed: rows per table and operation, and with --rows each row's before and after.")

    @Argument(help: ArgumentHelp("The run's id (see `crubatch runs`).", valueName: "run")) var runID: Int
    @Flag(help: "List every changed row: the columns an update changed, the whole row an insert or delete wrote.")
    var rows = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("runs show") }

    func report(to console: Console) throws -> ExitStatus {
        console.finish(try RunDetails.load(runID, rows: rows, from: database.connect()))
    }
}
