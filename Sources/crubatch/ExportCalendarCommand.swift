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
        try output.run("calendar events", json: format == .json, scope: scope.scope, database: database) { exporter, target in
            format == .ics ? try exporter.exportCalendar(scope.scope, to: target)
                : try exporter.exportCalendarJSON(scope.scope, to: target)
        }
    }
}
