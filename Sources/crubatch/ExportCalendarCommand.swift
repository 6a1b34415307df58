import ArgumentParser
import CruBatch

struct ExportCalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Export an iCalendar (.ics): a weekly event per community group and every event.")

    @OptionGroup var scope: ScopeOptions
    @Option(help: "Output .ics file.") var out: String
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try runReportingErrors {
            let exporter = try Exporter(connection: database.connect())
            try exporter.requireExists(scope.scope)
            let file = try exporter.exportCalendar(scope.scope, to: .file(out))
            printError("wrote \(file.rows) calendar events to \(file.file) (\(file.bytes) bytes)")
            return .ok
        }
    }
}
