import CSVStream
import Foundation

/// Opens a file of rows by what it holds, whatever its name says: a workbook (.xlsx) as one of its
/// sheets, anything else as CSV (read on a thread of its own). Old Excel (.xls) and Numbers
/// documents are refused with what to do instead.
public enum TableFile {
    /// Throws `FileOpenError` (missing or unreadable file), `WorkbookError` (not a workbook that
    /// can be read, no such sheet, `--sheet` for a CSV file) or a `Diagnostic` when the header row
    /// cannot be read.
    public static func open(path: String, options: CSVReader.Options = CSVReader.Options(),
                            sheet: String? = nil) throws -> any TableReader {
        do {
            return try reader(path: path, options: options, sheet: sheet)
        } catch let error as WorkbookError {
            // Named as the user named it: a download's temporary path means nothing to them.
            throw error.naming(options.displayName ?? path)
        }
    }

    private static func reader(path: String, options: CSVReader.Options, sheet: String?) throws -> any TableReader {
        let lowercasedPath = path.lowercased()
        if lowercasedPath.hasSuffix(".numbers") { throw WorkbookError.appleNumbers(path: path) }
        let signature = leadingBytes(of: path)
        if signature.starts(with: [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            throw WorkbookError.legacyExcel(path: path)
        }
        if signature.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return try XLSXTableReader(path: path, displayName: options.displayName, sheet: sheet,
                                       limits: WorkbookLimits(maxCellBytes: options.maxFieldBytes))
        }
        var isDirectory: ObjCBool = false
        if lowercasedPath.hasSuffix(".xlsx") || lowercasedPath.hasSuffix(".xlsm"),
           FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw WorkbookError.notAWorkbook(path: path, reason: signature.isEmpty ? "it is empty" : "it is not a ZIP package")
        }
        if sheet != nil { throw WorkbookError.sheetOfCSV(path: path) }
        return PrefetchingTableReader(try CSVTableReader(reader: CSVReader(path: path, options: options)))
    }

    /// The first bytes of a file, empty when it cannot be read (the CSV reader then says why).
    private static func leadingBytes(of path: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 8)).map { Array($0) } ?? []
    }
}
