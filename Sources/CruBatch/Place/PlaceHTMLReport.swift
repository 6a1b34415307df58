import CSVStream
import SpreadsheetReader

extension HTMLReport {
    /// The page of a `place` run: the answers counted by outcome, the problems by code, the bad
    /// answers of the file (read again) with their cells marked, and the placements. People appear as
    /// the file names them.
    public static func write(_ report: PlaceReport, path: String, options: PlaceOptions, to target: String) throws {
        let outcomes: [(String, Int)] = [
            ("placed", report.counts.placed), ("already placed", report.counts.alreadyPlaced),
            ("no matching group", report.counts.noMatchingGroup),
            ("unreadable availability", report.counts.unparseableAvailability), ("invalid", report.counts.invalid),
        ]
        var page = HTMLReport(title: "crubatch place\(report.dryRun ? " --dry-run" : ""): \(report.file)",
                              verdict: report.verdict, failed: report.exitStatus != .ok,
                              summary: (["outcome", "answers"], outcomes.map { [$0.0, String($0.1)] }))
        page.diagnostics = report.diagnostics
        let bad = Set(report.diagnostics.filter { $0.severity == .error }.map(\.line))
        if !report.unreadable && !bad.isEmpty {
            let table = try TableFile.open(path: path, options: CSVReader.Options(displayName: options.displayName ?? path,
                                                                                  encoding: options.encoding), sheet: options.sheet)
            var sheet = BadRows(file: report.file, header: [])
            try RejectedRow.read(table, diagnostics: report.diagnostics, rejected: bad, everyRow: false) { header in
                sheet = BadRows(file: report.file, header: header)
            } row: { row in
                sheet.add(row)
            }
            page.badRows = [sheet]
        }
        let placed = report.answers.filter { $0.outcome == .placed }
        page.changes = [Changes(kind: "memberships", inserted: placed.map { "\($0.name) in \($0.group?.code ?? "")" })]
        page.notes = report.answers.filter { $0.outcome == .noMatchingGroup || $0.outcome == .unparseableAvailability }
            .map { "line \($0.line), \($0.name): \($0.message ?? $0.outcome.rawValue)" }
        try page.write(to: target)
    }
}
