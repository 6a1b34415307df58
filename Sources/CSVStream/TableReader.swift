/// A data row of a table (a CSV file or a workbook sheet): where it is, its cells aligned to the
/// header, and what is wrong with it as it was read.
public struct TableRow: Sendable, Equatable {
    /// The physical line of a CSV file, or the row number of a sheet.
    public var line: Int
    /// The cells, exactly as many as the header has columns (missing cells are empty strings).
    public var cells: [String]
    /// The cells exactly as they were in the file (for the rejects file).
    public var originalCells: [String]
    /// Errors in the row as read: the wrong number of cells, a formula without a value.
    public var problems: [Diagnostic]

    public init(line: Int, cells: [String], originalCells: [String], problems: [Diagnostic] = []) {
        self.line = line
        self.cells = cells
        self.originalCells = originalCells
        self.problems = problems
    }
}

/// Rows under a checked header row, read one at a time in constant memory: a CSV file
/// (`CSVTableReader`) or a workbook sheet. `import`, `validate` and `place` read through it, so a
/// row meets the same mapping, checks and diagnostics whatever the file format.
public protocol TableReader: AnyObject {
    /// The name diagnostics give the file (usually the path as the user typed it).
    var displayName: String { get }
    /// The sheet the rows come from, for a workbook; nil for a CSV file.
    var sheet: String? { get }
    /// Header names as written in the file.
    var header: [String] { get }
    /// Bytes of the input read so far and the input's size, for a progress line.
    var bytesRead: Int { get }
    var totalBytes: Int { get }
    /// The SHA-256 of the file, once every row has been read.
    var sha256Hex: String? { get }

    /// The next data row, skipping (and warning about) blank ones; nil at the end. Throws the
    /// problem that makes the rest of the file unreadable.
    func next() throws(Diagnostic) -> TableRow?
    /// Hands over the warnings (blank rows) gathered so far.
    func takeWarnings() -> [Diagnostic]
    /// A diagnostic about one of its rows where the file's reader finds it: on its sheet by
    /// default; a reader whose rows are made from something else (an iCalendar file's events)
    /// points at what they were made from.
    func locate(_ diagnostic: Diagnostic) -> Diagnostic
}

extension TableReader {
    public func locate(_ diagnostic: Diagnostic) -> Diagnostic { diagnostic.inSheet(sheet) }
}

/// A table's header row, checked (no blank, no duplicate names), and the rules that fit data rows
/// to it; the same for every `TableReader`.
public struct TableHeader: Sendable {
    public let names: [String]
    private let file: String
    private let sheet: String?

    /// Throws `blank-header` or `duplicate-header`.
    public init(names: [String], line: Int, file: String, sheet: String? = nil) throws(Diagnostic) {
        var seen: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            let key = Self.normalizedName(name)
            if key.isEmpty {
                throw Diagnostic(file: file, sheet: sheet, line: line, column: index + 1, code: .blankHeader,
                                 message: "column \(index + 1) has no name",
                                 hint: "name the column or delete it from the sheet")
            }
            if let first = seen[key] {
                throw Diagnostic(file: file, sheet: sheet, line: line, column: index + 1, code: .duplicateHeader,
                                 message: "column \"\(name)\" appears twice (also column \(first + 1))",
                                 hint: "delete or rename one of the two columns")
            }
            seen[key] = index
        }
        self.names = names
        self.file = file
        self.sheet = sheet
    }

    /// The header's form used for matching: lower case, without spaces, `_` and `-`.
    public static func normalizedName(_ name: String) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter {
            !($0 == " " || $0 == "_" || $0 == "-" || $0 == "\t" || $0 == "\u{A0}")
        }))
    }

    /// The `empty-file` error of a file (or sheet) without a header row.
    public static func missing(file: String, sheet: String? = nil) -> Diagnostic {
        Diagnostic(file: file, sheet: sheet, line: 1, code: .emptyFile,
                   message: "the \(sheet == nil ? "file" : "sheet") is empty: it has no header row",
                   hint: "the first row must name the columns, e.g. code,name")
    }

    /// The warning for blank rows above the header row.
    public static func blankBefore(file: String, sheet: String? = nil) -> Diagnostic {
        Diagnostic(file: file, sheet: sheet, line: 1, code: .blankRow, message: "blank lines before the header are skipped")
    }

    /// The warning for blank data rows, which are skipped: one, or a run of them.
    public func blankRows(_ lines: ClosedRange<Int>) -> Diagnostic {
        Diagnostic(file: file, sheet: sheet, line: lines.lowerBound, code: .blankRow,
                   message: lines.count == 1 ? "blank row skipped" : "\(lines.count) blank rows skipped (\(lines.lowerBound)-\(lines.upperBound))")
    }

    /// A row of the header's width. Cells with content past the header are an `extra-cell` error
    /// (empty ones are a spreadsheet's padding). Missing cells are padded with empty ones, and are
    /// a `missing-cell` error unless `missingCellsAreBlank` (a sheet leaves empty cells out; a CSV
    /// row writes every cell).
    public func fit(_ record: [String], line: Int, missingCellsAreBlank: Bool = false) -> TableRow {
        let width = names.count
        var cells = record
        var problems: [Diagnostic] = []
        if cells.count > width {
            if let extra = cells[width...].firstIndex(where: { !$0.isEmpty }) {
                problems.append(Diagnostic(
                    file: file, sheet: sheet, line: line, column: extra + 1, code: .extraCell,
                    message: "this row has \(record.count) cells but the header names \(width) columns",
                    hint: "move the value into a named column or delete it"))
            }
            cells.removeLast(cells.count - width)
        } else if cells.count < width {
            if !missingCellsAreBlank {
                problems.append(Diagnostic(
                    file: file, sheet: sheet, line: line, column: cells.count + 1, field: names[cells.count],
                    code: .missingCell,
                    message: "this row has \(cells.count) cells but the header names \(width) columns; \"\(names[cells.count])\" and after are missing",
                    hint: "a row must have a cell (possibly empty) for every column"))
            }
            cells.append(contentsOf: repeatElement("", count: width - cells.count))
        }
        return TableRow(line: line, cells: cells, originalCells: record, problems: problems)
    }
}
