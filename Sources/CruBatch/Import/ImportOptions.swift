import CSVStream
import SpreadsheetReader

/// How `import` and `validate` treat a file (the import options of `crubatch import --help`).
public struct ImportOptions: Sendable {
    /// What happens to the good rows when some rows are bad.
    public enum OnError: String, Sendable, CaseIterable {
        /// Nothing is written if any row is bad.
        case abort
        /// Good rows load; bad rows go to the rejects file.
        case skip
    }

    /// What an empty cell means when it updates an existing row.
    public enum Blank: String, Sendable, CaseIterable {
        /// Keep the stored value.
        case keep
        /// Erase the stored value.
        case clear
    }

    public var dryRun = false
    /// The campus codes a campus account of the console works on: every row of another campus (or of
    /// none) is that row's `forbidden-campus` error. nil: every campus.
    public var campuses: [String]?
    /// Validate only: check everything, write nothing, record no run.
    public var validateOnly = false
    /// Whether the load lists what it would change, field by field: a run that writes nothing.
    var previews: Bool { dryRun || validateOnly }
    /// How many rows of each list of changes the text lists (`--diff-limit`; nil: all of them).
    public var diffLimit: Int? = 20
    public var onError: OnError = .abort
    public var maxErrors: Int?
    public var rejectsPath: String?

    /// Whether a rejects file named `path` is written as a workbook (`--rejects FILE.xlsx`).
    public static func rejectsAreWorkbook(_ path: String) -> Bool { FileFormat.ofOutput(path: path) == .workbook }
    /// `--report FILE.html`: the run as one HTML page.
    public var reportPath: String?
    public var delimiter: UInt8?
    public var encoding: TextEncoding = .utf8
    /// The workbook sheet to read (default: the first); only for .xlsx files.
    public var sheet: String?
    public var blank: Blank = .keep
    /// What a row is that adds a person who probably is someone known already (`--on-duplicate`):
    /// a `possible-duplicate` warning, or an error that rejects the row.
    public var onDuplicate: Diagnostic.Severity = .warning
    /// Wait for another import of the same kind to finish instead of exiting 75.
    public var waitForLock = false
    /// How slash dates are read (`--date-order`).
    public var dateOrder: DateOrder = .mdy
    /// Header titles to read as columns (`--map TITLE=COLUMN`): column name -> title. Each applies to
    /// every file of the load whose header has the title; one that no file has is an error.
    public var columnMap: [String: String] = [:]
    /// `--sync`: the file is the complete list of this part of its kind; the rows it does not list
    /// are archived (memberships ended).
    public var sync: SyncScope?
    /// `--max-archive`: how many rows a sync may archive.
    public var maxArchive: ArchiveLimit = .standard
    /// `--move`: a student a memberships file puts in a group leaves their other groups of its ministry.
    public var move = false
    /// Whose events an iCalendar file holds (`--campus`, `--ministry`).
    public var eventOwner: EventOwner?
    /// What new memberships queue: leaders' notifications by default; `--welcome` adds the
    /// students' welcomes, `--no-notify` records everything as suppressed (a backfill).
    public var messages = JoinMessages()
    /// How a URL is fetched, and whether an unchanged one loads anyway.
    public var fetch = FetchOptions()
    /// `--timings`: where each phase of the load adds its time; nil keeps none.
    public var timings: PhaseTimings?

    public init() {}

    /// These options with those `source` sets for itself (a sources file's sheet and map; its
    /// sync is the importer's).
    func `for`(_ source: Importer.Source) -> ImportOptions {
        var options = self
        if let sheet = source.sheet { options.sheet = sheet }
        if let columnMap = source.columnMap { options.columnMap = columnMap }
        return options
    }

    /// Opens a file of rows with these options: an iCalendar file (whatever its name) as the events
    /// it holds, for `owner` when given; else a CSV file, or a workbook's sheet.
    func openTable(path: String, displayName: String, owner: CalendarOwner? = nil) throws -> any TableReader {
        if FileFormat.ofInput(path: path) == .calendar {
            return try CalendarEventTable(path: path, displayName: displayName, owner: owner)
        }
        return try TableFile.open(path: path, options: CSVReader.Options(displayName: displayName, delimiter: delimiter,
                                                                         encoding: encoding), sheet: sheet)
    }
}
