import ArgumentParser
import CruBatch

struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List recent imports: kind, file, outcome and what each wrote (a killed run shows as 'killed').")

    @Option(help: "How many runs to show.") var limit = 20
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let console = output.console("runs")
        try console.run {
            console.finish(try ImportRuns.load(limit, from: database.connect()))
        }
    }
}
