/// Why a file cannot be read as a workbook, or a sheet cannot be chosen in it.
public enum WorkbookError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a readable .xlsx workbook (not a ZIP package, no workbook part, damaged).
    case notAWorkbook(path: String, reason: String)
    /// An old binary Excel file (.xls), or a password-protected workbook: both are OLE containers.
    case legacyExcel(path: String)
    /// An Apple Numbers document.
    case appleNumbers(path: String)
    /// `--sheet NAME` for a workbook without that sheet.
    case noSuchSheet(path: String, sheet: String, available: [String])
    /// `--sheet NAME` for a CSV file.
    case sheetOfCSV(path: String)

    /// True when the file itself is at fault (exit 65), false when the command asked for something
    /// the file does not have (a usage error).
    public var isFileProblem: Bool {
        switch self {
        case .notAWorkbook, .legacyExcel, .appleNumbers: true
        case .noSuchSheet, .sheetOfCSV: false
        }
    }

    /// The same error naming the file `name` (a URL for a download) instead of the path read.
    func naming(_ name: String) -> WorkbookError {
        switch self {
        case .notAWorkbook(_, let reason): .notAWorkbook(path: name, reason: reason)
        case .legacyExcel: .legacyExcel(path: name)
        case .appleNumbers: .appleNumbers(path: name)
        case .noSuchSheet(_, let sheet, let available): .noSuchSheet(path: name, sheet: sheet, available: available)
        case .sheetOfCSV: .sheetOfCSV(path: name)
        }
    }

    public var description: String {
        switch self {
        case .notAWorkbook(let path, let reason):
            "\(path) is not a valid Excel workbook (.xlsx): \(reason); save it again from Excel, LibreOffice or Google Sheets as .xlsx or CSV UTF-8"
        case .legacyExcel(let path):
            "\(path) is an old Excel workbook (.xls) or a password-protected one, which crubatch cannot read; open it in Excel or LibreOffice, remove any password and save it as Excel Workbook (.xlsx) or CSV UTF-8"
        case .appleNumbers(let path):
            "\(path) is an Apple Numbers document; in Numbers choose File > Export To > Excel (.xlsx) or CSV"
        case .noSuchSheet(let path, let sheet, let available):
            "\(path) has no sheet \"\(sheet)\"; its sheets are: \(available.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .sheetOfCSV(let path):
            "--sheet applies to workbooks (.xlsx), and \(path) is a CSV file"
        }
    }
}
