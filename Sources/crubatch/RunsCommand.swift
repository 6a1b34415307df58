import ArgumentParser
import CruBatch

struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List recent imports: kind, file, outcome and counts (a run still 'running' was killed).")

    @Option(help: "How many runs to show.") var limit = 20
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try runReportingErrors {
            let rows = try ImportRuns.latest(limit, from: database.connect())
            let table = [ImportRuns.columns] + rows
            let widths = ImportRuns.columns.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
            for row in table {
                printLine(row.enumerated().map { $1.rightPadded(widths[$0]) }.joined(separator: "  ")
                    .trimmingCharacters(in: .whitespaces))
            }
            return .ok
        }
    }
}
