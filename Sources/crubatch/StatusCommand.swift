import ArgumentParser
import CruBatch

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show row counts per table and pending, failed and dead notifications.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let console = output.console("status")
        try console.run {
            console.finish(try StatusReport.load(from: database.connect()))
        }
    }
}
