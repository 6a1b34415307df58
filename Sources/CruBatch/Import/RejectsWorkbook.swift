import CSVStream
import FileOutput
import SpreadsheetWriter

/// The rejects as an .xlsx workbook staff fix in Excel or LibreOffice and import again: one sheet
/// with the file's header (bold, frozen) and cells as text, plus an `errors` column; every cell an
/// error is about is filled light red and carries a comment with the message and the hint. libxlsxwriter
/// keeps the cells in memory until the workbook is written, so the rows are kept until `commit()`
/// (a rejects file is the rows staff fix by hand, not a bulk output).
final class RejectsWorkbook: RejectsSink {
    private static let header = XLSXWriter.Style(bold: true)
    private static let bad = XLSXWriter.Style(fill: 0xFFC7CE)
    private static let errorText = XLSXWriter.Style(wrapsText: true)

    private let target: OutputTarget
    private let headerCells: [String]
    private let sheetName: String
    private var rows: [RejectedRow] = []

    init(target: OutputTarget, header: [String], sheet: String) throws {
        self.target = target
        headerCells = header
        sheetName = sheet
    }

    func append(_ row: RejectedRow) throws {
        rows.append(row)
    }

    func commit() throws {
        try OutputFile(target).commit { path in
            do {
                try fill(path)
            } catch let failure as XLSXWriter.Failure {
                // A full disk is the output's problem (73), not a defect in crubatch.
                guard let reason = failure.writeFailure else { throw failure }
                throw OutputError(path: target.path, reason: reason)
            }
        }
    }

    /// `email: not a valid email address (hint: ...)`, one line per error.
    private static func note(_ errors: [Diagnostic]) -> String {
        errors.map { "\($0.code.rawValue): \($0.message)" + ($0.hint.map { "\nhint: \($0)" } ?? "") }.joined(separator: "\n")
    }

    private func fill(_ path: String) throws {
        let workbook = try XLSXWriter(path: path)
        let sheet = try workbook.addSheet(named: sheetName)
        let errorsColumn = headerCells.count
        for (column, title) in (headerCells + [HeaderMapping.workbookErrorsColumn]).enumerated() {
            try sheet.write(title, row: 0, column: column, style: Self.header)
        }
        for (index, row) in rows.enumerated() {
            let line = index + 1
            var byCell: [Int: [Diagnostic]] = [:]
            for (diagnostic, cell) in row.errors { if let cell { byCell[cell, default: []].append(diagnostic) } }
            for (column, text) in row.cells.enumerated() {
                try sheet.write(text, row: line, column: column, style: byCell[column] == nil ? nil : Self.bad)
            }
            for (column, errors) in byCell { try sheet.comment(Self.note(errors), row: line, column: column) }
            if !row.errors.isEmpty {
                try sheet.write(Self.note(row.errors.map(\.diagnostic)), row: line, column: errorsColumn, style: Self.errorText)
            }
        }
        try sheet.setWidth(60, columns: errorsColumn...errorsColumn)
        sheet.freezeRows(above: 1)
        try workbook.close()
    }
}
