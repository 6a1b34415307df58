import ArgumentParser
import CruBatch

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show row counts per table and pending, failed and dead notifications."
    )

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try runReportingErrors {
            let connection = try database.connect()
            printLine(try StatusReport.load(from: connection).text)
            return .ok
        }
    }
}
