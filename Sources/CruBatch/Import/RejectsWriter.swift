import FileOutput
import CSVStream

/// What `--rejects` wrote, for the summary.
public struct RejectsSummary: Sendable, Equatable, Encodable {
    /// The file, or the folder of `KIND.csv` files when the load had several files.
    public let path: String
    /// True when it holds every row (`--on-error abort`: nothing was loaded, so fixing the bad cells
    /// and importing it loads everything); false when only the rejected rows (`--on-error skip`).
    public let everyRow: Bool
    /// The rows written.
    public let rows: Int
    /// How many of them were rejected.
    public let rejected: Int

    /// `rejects: r.csv holds every row, 2 of them rejected: fix their cells and import it`.
    public var sentence: String {
        let them = rejected == 1 ? "its cells" : "their cells"
        return everyRow
            ? "rejects: \(path) holds every row (\(rows)), \(rejected) of them rejected: fix \(them) and import it to load everything"
            : "rejects: \(path) holds the \(rejected) rejected row\(rejected == 1 ? "" : "s"): fix \(them) and import it"
    }
}

/// Writes the rejects file: the original header and cells plus `error_line,error_code,error_message`,
/// so staff fix the cells and import the file as it is. Every error of a row is listed (codes
/// `;`-separated, messages ` | `-separated). Under `--on-error abort` nothing was loaded, so the file
/// holds every row, the good ones with empty error cells; under `skip` only the rejected rows.
/// It is CSV whatever the input was (for a workbook, `error_line` is the sheet's row number).
/// It reads the input a second time rather than keeping rows in memory.
struct RejectsWriter {
    let options: ImportOptions

    /// One file to `path`, or for several files one `KIND.csv` per kind inside the folder `path`;
    /// nil when no row was rejected (nothing is written).
    func write(results: [KindLoadResult], sources: [Source], to path: String) throws -> RejectsSummary? {
        let rejected = results.reduce(0) { $0 + $1.rejectedLines.count }
        guard rejected > 0 else { return nil }
        let everyRow = options.onError == .abort
        var rows = 0
        for (result, source) in zip(results, sources) where !result.fatal && (everyRow || !result.rejectedLines.isEmpty) {
            let target = sources.count > 1 ? path + "/" + source.kind.fileName : path
            rows += try write(result: result, source: source, everyRow: everyRow, to: target)
        }
        return RejectsSummary(path: path, everyRow: everyRow, rows: rows, rejected: rejected)
    }

    typealias Source = Importer.Source

    private func write(result: KindLoadResult, source: Source, everyRow: Bool, to target: String) throws -> Int {
        let table = try options.openTable(path: source.readPath, displayName: source.displayName)
        let ignored = Set(HeaderMapping.rejectColumns.map(TableHeader.normalizedName))
        let kept = table.header.indices.filter { !ignored.contains(TableHeader.normalizedName(table.header[$0])) }
        var errors: [Int: [Diagnostic]] = [:]
        for diagnostic in result.diagnostics where diagnostic.severity == .error && result.rejectedLines.contains(diagnostic.line) {
            errors[diagnostic.line, default: []].append(diagnostic)
        }
        let file = try OutputFile(try OutputTarget(target))
        let writer = CSVWriter()
        var buffer: [UInt8] = []
        var rows = 0
        writer.append(kept.map { table.header[$0] } + HeaderMapping.rejectColumns, to: &buffer)
        while let row = try table.next() {
            let rowErrors = errors[row.line] ?? []
            guard everyRow || !rowErrors.isEmpty else { continue }
            let cells = kept.map { $0 < row.originalCells.count ? row.originalCells[$0] : "" }
            var codes: [String] = []
            for code in rowErrors.map(\.code.rawValue) where !codes.contains(code) { codes.append(code) }
            let errorCells = rowErrors.isEmpty ? ["", "", ""]
                : [String(row.line), codes.joined(separator: ";"), rowErrors.map(\.message).joined(separator: " | ")]
            writer.append(cells + errorCells, to: &buffer)
            rows += 1
            if buffer.count > 1 << 16 {
                try file.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try file.write(buffer)
        try file.commit()
        return rows
    }
}
