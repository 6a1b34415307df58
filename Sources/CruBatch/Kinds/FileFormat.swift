import Foundation
import ICalendar

/// What a file crubatch reads or writes is, decided in this one place. A file read is told by its
/// first bytes whatever its name: an iCalendar file (and any file named `.ics`, so that one whose
/// bytes are no calendar is refused as one, not read as CSV), an Excel workbook (a ZIP package;
/// `TableFile` then tells a sheet's workbook from old Excel and Numbers), or CSV. A file written,
/// which does not exist yet, is told by its name. `import --dir` takes a file as a kind's by name.
enum FileFormat: Equatable, Sendable {
    case csv
    case workbook
    case calendar

    /// The endings of the files `import --dir` takes as a kind's (`groups.csv`, `groups.xlsx`).
    static let folderEndings = [".csv", ".xlsx"]

    /// What the file at `path` holds.
    static func ofInput(path: String) -> FileFormat {
        if path.lowercased().hasSuffix(".ics") { return .calendar }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .csv }
        defer { try? handle.close() }
        let start = Array((try? handle.read(upToCount: 4_096)) ?? Data())
        if ICalendarReader.looksLikeICalendar(start) { return .calendar }
        return start.starts(with: [0x50, 0x4B, 0x03, 0x04]) ? .workbook : .csv
    }

    /// What a file to be written as `path` is asked to be: a workbook when named `.xlsx`, else CSV.
    static func ofOutput(path: String) -> FileFormat {
        path.lowercased().hasSuffix(".xlsx") ? .workbook : .csv
    }
}
