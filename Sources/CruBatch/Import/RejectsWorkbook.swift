import CSVStream
import FileOutput
import SpreadsheetWriter

/// The rejects as an .xlsx workbook staff fix in Excel or LibreOffice and import again: one sheet
/// with the file's header (bold, frozen) and cells as text, plus an `errors` column; every cell an
/// error is about is filled light red and carries a comment with the message and the hint.
enum RejectsWorkbook {
    private static let header = XLSXWriter.Style(bold: true)
    private static let bad = XLSXWriter.Style(fill: 0xFFC7CE)
    private static let errorText = XLSXWriter.Style(wrapsText: true)

    /// Writes the header and rows that `rows` hands over to a sheet named `sheet`; returns how many rows.
    static func write(to target: OutputTarget, sheet name: String,
                      rows: (_ header: ([String]) throws -> Void, _ row: (RejectedRow) throws -> Void) throws -> Void) throws -> Int {
        var count = 0
        try OutputFile(target).commit { path in
            do {
                let workbook = try XLSXWriter(path: path)
                let sheet = try workbook.addSheet(named: name)
                var errorsColumn = 0
                try rows { header in
                    errorsColumn = header.count
                    for (column, title) in (header + [HeaderMapping.workbookErrorsColumn]).enumerated() {
                        try sheet.write(title, row: 0, column: column, style: Self.header)
                    }
                } _: { row in
                    count += 1
                    try write(row, at: count, errorsColumn: errorsColumn, on: sheet)
                }
                try sheet.setWidth(60, columns: errorsColumn...errorsColumn)
                sheet.freezeRows(above: 1)
                try workbook.close()
            } catch let failure as XLSXWriter.Failure {
                // A full disk is the output's problem (73), not a defect in crubatch.
                guard let reason = failure.writeFailure else { throw failure }
                throw OutputError(path: target.path, reason: reason)
            }
        }
        return count
    }

    /// One row: its cells, the bad ones filled and commented, and all its errors in the last column.
    private static func write(_ row: RejectedRow, at line: Int, errorsColumn: Int, on sheet: XLSXWriter.Sheet) throws {
        var byCell: [Int: [Diagnostic]] = [:]
        for (diagnostic, cell) in row.errors { if let cell { byCell[cell, default: []].append(diagnostic) } }
        for (column, text) in row.cells.enumerated() {
            try sheet.write(text, row: line, column: column, style: byCell[column] == nil ? nil : bad)
        }
        for (column, errors) in byCell { try sheet.comment(note(errors), row: line, column: column) }
        if !row.errors.isEmpty {
            try sheet.write(note(row.errors.map(\.diagnostic)), row: line, column: errorsColumn, style: errorText)
        }
    }

    /// `invalid-choice: day: "Fryday" is not one of ...` and its hint, one error after another.
    private static func note(_ errors: [Diagnostic]) -> String {
        errors.map { "\($0.code.rawValue): \($0.message)" + ($0.hint.map { "\nhint: \($0)" } ?? "") }.joined(separator: "\n")
    }
}
