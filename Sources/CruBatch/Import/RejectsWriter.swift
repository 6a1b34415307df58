import CSVStream
import FileOutput

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

/// Writes the rejects file: the original header and cells of the rows, and their errors, so staff fix
/// the cells and import the file as it is. Under `--on-error abort` nothing was loaded, so the file
/// holds every row, the good ones without errors; under `skip` only the rejected rows. It reads the
/// input a second time rather than keeping rows in memory.
///
/// A path ending in `.xlsx` gets a workbook (`RejectsWorkbook`): the cells plus an `errors` column,
/// each bad cell filled light red with a comment giving its message and hint, the header row bold
/// and frozen. Any other path gets CSV whatever the input was: the cells plus
/// `error_line,error_code,error_message`, every error of a row listed (codes `;`-separated, messages
/// ` | `-separated; for a workbook, `error_line` is the sheet's row number).
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

    /// Whether `path` asks for a workbook.
    static func isWorkbook(_ path: String) -> Bool { FileFormat.ofOutput(path: path) == .workbook }

    private func write(result: KindLoadResult, source: Source, everyRow: Bool, to target: String) throws -> Int {
        let rows = { (header: ([String]) throws -> Void, row: (RejectedRow) throws -> Void) in
            try readRows(of: result, source: source, everyRow: everyRow, header: header, row: row)
        }
        if Self.isWorkbook(target) {
            return try RejectsWorkbook.write(to: try OutputTarget(target), sheet: source.kind.rawValue, rows: rows)
        }
        return try RejectsCSV.write(to: try OutputTarget(target), rows: rows)
    }

    /// Reads `source` again: hands `header` the file's header (less the columns a rejects file
    /// adds), then `row` each row with its errors, every row or only the rejected ones.
    func readRows(of result: KindLoadResult, source: Source, everyRow: Bool,
                  header: ([String]) throws -> Void, row body: (RejectedRow) throws -> Void) throws {
        try RejectedRow.read(try options.openTable(path: source.readPath, displayName: source.displayName), diagnostics: result.diagnostics,
                             rejected: result.rejectedLines, everyRow: everyRow, header: header, row: body)
    }
}

/// A row of a file as a rejects file or a report shows it: its line, its cells (less the columns a
/// rejects file adds), and its errors, each with the cell it is about (an index into `cells`) when
/// it is about one.
struct RejectedRow {
    let line: Int
    let cells: [String]
    let errors: [(diagnostic: Diagnostic, cell: Int?)]

    /// Reads `table` (from its first row): hands `header` its header less the columns a rejects file
    /// adds, then `row` each row with the errors of `diagnostics` on its line: every row, or only
    /// the `rejected` lines.
    static func read(_ table: any TableReader, diagnostics: [Diagnostic], rejected: Set<Int>, everyRow: Bool,
                     header: ([String]) throws -> Void, row body: (RejectedRow) throws -> Void) throws {
        let kept = table.header.indices.filter { !HeaderMapping.ignoredColumns.contains(TableHeader.normalizedName(table.header[$0])) }
        // The errors in line order, walked beside the rows (which come in line order): no table of
        // every bad line is built, however many there are.
        let errors = diagnostics.indices.filter { diagnostics[$0].severity == .error && rejected.contains(diagnostics[$0].line) }
            .sorted { (diagnostics[$0].line, $0) < (diagnostics[$1].line, $1) }
        var next = errors.startIndex
        try header(kept.map { table.header[$0] })
        while let row = try table.next() {
            while next < errors.endIndex && diagnostics[errors[next]].line < row.line { next += 1 }
            let start = next
            while next < errors.endIndex && diagnostics[errors[next]].line == row.line { next += 1 }
            let rowErrors = errors[start..<next].map { diagnostics[$0] }
            guard everyRow || !rowErrors.isEmpty else { continue }
            // A diagnostic's column counts the file's cells from 1; a rejected row's, the kept ones from 0.
            try body(RejectedRow(line: row.line, cells: kept.map { $0 < row.originalCells.count ? row.originalCells[$0] : "" },
                                 errors: rowErrors.map { ($0, $0.column.flatMap { kept.firstIndex(of: $0 - 1) }) }))
        }
    }
}

/// The rejects as CSV: the cells plus `error_line,error_code,error_message`.
enum RejectsCSV {
    /// Writes the header and rows that `rows` hands over; returns how many rows.
    static func write(to target: OutputTarget,
                      rows: (_ header: ([String]) throws -> Void, _ row: (RejectedRow) throws -> Void) throws -> Void) throws -> Int {
        let file = try OutputFile(target)
        let writer = CSVWriter()
        var buffer: [UInt8] = []
        var count = 0
        try rows { header in
            writer.append(header + HeaderMapping.rejectColumns, to: &buffer)
        } _: { row in
            var codes: [String] = []
            for code in row.errors.map(\.diagnostic.code.rawValue) where !codes.contains(code) { codes.append(code) }
            let errorCells = row.errors.isEmpty ? ["", "", ""]
                : [String(row.line), codes.joined(separator: ";"), row.errors.map(\.diagnostic.message).joined(separator: " | ")]
            writer.append(row.cells + errorCells, to: &buffer)
            count += 1
            if buffer.count > 1 << 16 {
                try file.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try file.write(buffer)
        try file.commit()
        return count
    }
}
