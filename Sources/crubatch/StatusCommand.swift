import ArgumentParser
import CruBatch

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show row counts per table, and notifications per status and per kind (dead ones listed).")

    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let console = output.console("status")
        try console.run {
            console.finish(try StatusReport.load(from: database.connect()))
        }
    }
}
