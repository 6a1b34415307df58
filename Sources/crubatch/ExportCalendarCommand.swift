import ArgumentParser
import CruBatch

struct ExportCalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Export an iCalendar (.ics): each group's weekly meetings inside its campus's terms, and every event.",
        discussion: """
        A group meets weekly inside each term of its campus (one series per term, never on a break day), from its first_meeting to its last_meeting when it has them; a campus without terms keeps the weekly meeting from August 1. The calendar is named after the ministry, campus or group (X-WR-CALNAME). With --terms, the academic calendar instead: all-day events for each term's first and last day of classes and its breaks.

        Examples:
          crubatch export calendar --ministry cru-calpoly --out cru-calpoly.ics
          crubatch export calendar --campus calpoly --terms > calpoly-terms.ics
        """)

    @OptionGroup var scope: ScopeOptions
    @Flag(help: "Export the academic calendar (terms and breaks as all-day events) instead of meetings and events.")
    var terms = false
    @Option(help: "ics (RFC 5545, for calendar apps) or json (the same events, for scripts).")
    var format: CalendarFormat = .ics
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum CalendarFormat: String, ExpressibleByArgument, CaseIterable { case ics, json }

    func run() throws {
        let content: CalendarContent = terms ? .academicTerms : .meetingsAndEvents
        try output.run("calendar events", json: format == .json, scope: scope.scope, database: database) { exporter, target in
            format == .ics ? try exporter.exportCalendar(scope.scope, content: content, to: target)
                : try exporter.exportCalendarJSON(scope.scope, content: content, to: target)
        }
    }
}
