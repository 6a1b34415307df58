import ArgumentParser
import CruBatch

struct ExportCalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Export an iCalendar (.ics): a weekly event per community group and every event.")

    @OptionGroup var scope: ScopeOptions
    @Option(help: "ics (RFC 5545, for calendar apps) or json (the same events, for scripts).")
    var format: CalendarFormat = .ics
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum CalendarFormat: String, ExpressibleByArgument, CaseIterable { case ics, json }

    func run() throws {
        let console = output.console(json: format == .json)
        try console.run {
            let exporter = try Exporter(connection: database.connect())
            try exporter.requireExists(scope.scope)
            let target = try output.target()
            let file = format == .ics ? try exporter.exportCalendar(scope.scope, to: target)
                : try exporter.exportCalendarJSON(scope.scope, to: target)
            output.noteWritten(file, "calendar events")
            return .ok
        }
    }
}
