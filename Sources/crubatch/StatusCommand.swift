import ArgumentParser
import CruBatch

struct StatusCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show row counts per table, and notifications per status and per kind (dead ones listed).")

    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("status") }

    func report(to console: Console) throws -> ExitStatus {
        console.finish(try StatusReport.load(from: database.connect()))
    }
}
