import CSVStream
import FileOutput
import Foundation

extension DiagnosticCode {
    /// A sheet whose XML or compressed data breaks off part-way: the file is damaged.
    public static let malformedWorkbook = DiagnosticCode("malformed-workbook", fatalToFile: true)
    /// A formula saved without its calculated value (by a program that does not calculate).
    public static let uncalculatedFormula = DiagnosticCode("uncalculated-formula")

    /// The codes this module reports while reading a workbook, beyond those of any table.
    public static let workbookCodes: [DiagnosticCode] = [.malformedWorkbook, .uncalculatedFormula]
}

/// Reads one sheet of an .xlsx workbook as a table, streaming its rows in constant memory (only the
/// shared strings are held), with the same header checks, row shapes and blank-row warnings as a
/// CSV file. Rows are located by their row number and cells by column, so a diagnostic names
/// `students.xlsx:Sheet1!C14`.
///
/// Cells read as the sheet shows them: strings as written, whole numbers as their digits (a phone
/// stored as a number reads `8055550203`, never `8.05555E+09`), dates and times from their serial
/// numbers when their number format is a date's (`2026-11-22`, `19:00`,
/// `2026-11-22T19:00:00`), booleans as TRUE and FALSE, formulas as their saved value.
public final class XLSXTableReader: TableReader {
    public let displayName: String
    public let sheet: String?
    public let totalBytes: Int
    private let path: String
    private let rows: SheetRowStream
    private let tableHeader: TableHeader
    private var warnings: [Diagnostic] = []
    private var lastRow: Int
    private var digest: String?

    /// Opens `sheet` (default: the first visible sheet) and reads its header row. Throws a
    /// `WorkbookError` when the file is not a workbook or lacks the sheet, and a `Diagnostic`
    /// (`empty-file`, `blank-header`, `duplicate-header`, `malformed-workbook`) when its header
    /// cannot be read; a header cell left empty by a merge is named as part of its merged cell.
    public init(path: String, displayName: String? = nil, sheet: String? = nil,
                limits: WorkbookLimits = WorkbookLimits()) throws {
        let workbook = try XLSXWorkbook(path: path, limits: limits)
        let chosen = try workbook.sheet(named: sheet)
        let file = displayName ?? path
        let rows = workbook.rows(of: chosen)
        var first: SheetRow?
        do {
            while first == nil, let row = try rows.next() {
                if !row.isBlank { first = row }
            }
        } catch {
            throw Self.malformed(error, file: file, sheet: chosen.name)
        }
        guard var headerRow = first else { throw TableHeader.missing(file: file, sheet: chosen.name) }
        while headerRow.cells.last?.isEmpty == true { headerRow.cells.removeLast() }
        self.tableHeader = try Self.header(headerRow, file: file, sheet: chosen.name) {
            MergedRange.all(packagePath: path, part: chosen.part, limits: limits)
        }
        if headerRow.number != 1 { warnings.append(TableHeader.blankBefore(file: file, sheet: chosen.name)) }
        self.displayName = file
        self.sheet = chosen.name
        self.totalBytes = chosen.xmlSize
        self.path = path
        self.rows = rows
        self.lastRow = headerRow.number
    }

    public var header: [String] { tableHeader.names }
    /// Bytes of the sheet's uncompressed XML behind the rows read so far.
    public var bytesRead: Int { rows.bytesRead }
    public var sha256Hex: String? { digest }

    public func takeWarnings() -> [Diagnostic] {
        defer { warnings.removeAll() }
        return warnings
    }

    public func next() throws(Diagnostic) -> TableRow? {
        do {
            while let row = try rows.next() {
                if row.isBlank { continue }
                // Blank rows between two rows with content, whether saved empty or left out, are skipped
                // with one warning per run; blank rows after the last one are not worth a word.
                if row.number > lastRow + 1 { warnings.append(tableHeader.blankRows(lastRow + 1...row.number - 1)) }
                lastRow = row.number
                var tableRow = tableHeader.fit(row.cells, line: row.number, missingCellsAreBlank: true)
                tableRow.problems += row.uncalculated.map { uncalculated($0, line: row.number) }
                return tableRow
            }
        } catch {
            throw Self.malformed(error, file: displayName, sheet: sheet)
        }
        if digest == nil { digest = Self.sha256(of: path) }
        return nil
    }

    private func uncalculated(_ cell: UncalculatedFormula, line: Int) -> Diagnostic {
        Diagnostic(file: displayName, sheet: sheet, line: line, column: cell.column,
                   field: cell.column <= header.count ? header[cell.column - 1] : nil, code: .uncalculatedFormula,
                   message: "the formula =\(cell.formula) has no saved value (the program that wrote the file does not calculate formulas)",
                   hint: "open the file in Excel or LibreOffice and save it, or type the value instead of the formula")
    }

    /// The checked header of a sheet; a `blank-header` error of a cell that is part of a merged cell
    /// (of `merges`, read only then) says so.
    private static func header(_ row: SheetRow, file: String, sheet: String,
                               merges: () -> [MergedRange]) throws(Diagnostic) -> TableHeader {
        do throws(Diagnostic) {
            return try TableHeader(names: row.cells, line: row.number, file: file, sheet: sheet)
        } catch {
            guard error.code == .blankHeader else { throw error }
            throw merged(error, row: row, ranges: merges()) ?? error
        }
    }

    /// The `blank-header` error of a header cell that is part of a merged cell, saying so; nil when the
    /// cell is merged with none.
    private static func merged(_ blank: Diagnostic, row: SheetRow, ranges: [MergedRange]) -> Diagnostic? {
        guard let column = blank.column,
              let range = ranges.first(where: { $0.columns.contains(column) && $0.rows.contains(row.number) }) else {
            return nil
        }
        let first = range.columns.lowerBound
        let text = first <= row.cells.count ? row.cells[first - 1] : ""
        var diagnostic = blank
        diagnostic.message = "column \(Diagnostic.columnLetters(column)) has no name: its header cell is part of the merged "
            + "cell \(range.reference)\(text.isEmpty ? "" : " (\"\(text)\")"), which names one column"
        diagnostic.hint = "unmerge \(range.reference) and give each of its columns a name of its own"
        return diagnostic
    }

    private static func malformed(_ failure: SheetFailure, file: String, sheet: String?) -> Diagnostic {
        let place = failure.column == nil ? "row" : "cell"
        let message = "the sheet cannot be read from this \(place) on: \(failure.message)"
        let hint = failure.code == .fieldTooLong ? "shorten the cell, or check that the file is the one you meant"
            : "the file is damaged; open it in Excel or LibreOffice and save it again"
        return Diagnostic(file: file, sheet: sheet, line: max(failure.row, 1), column: failure.column,
                          code: failure.code, message: message, hint: hint)
    }

    private static func sha256(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalizeHex()
    }
}
