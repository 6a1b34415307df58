/// A data row of a CSV table: its line, its cells aligned to the header, and what is wrong with its shape.
public struct CSVRow: Sendable, Equatable {
    public var line: Int
    /// The cells, exactly as many as the header has columns (missing cells are empty strings).
    public var cells: [String]
    /// The cells exactly as they were in the file (for the rejects file).
    public var originalCells: [String]
    /// An extra-cell or missing-cell error, if the row does not have the header's shape.
    public var shapeProblem: Diagnostic?
}

/// Reads a CSV file as a table: checks the header (empty file, blank or duplicate names) and gives
/// rows of the header's width, reporting blank rows as warnings and wrong-width rows as errors.
public final class CSVTableReader {
    public let reader: CSVReader
    /// Header names as written in the file.
    public let header: [String]
    /// Warnings met while reading (blank rows), in file order; drained by the caller.
    public private(set) var warnings: [Diagnostic] = []

    /// Opens the table and reads its header. Throws `empty-file`, `blank-header` or `duplicate-header`.
    public init(reader: CSVReader) throws(Diagnostic) {
        self.reader = reader
        var headerRecord: CSVRecord?
        while headerRecord == nil, let event = try reader.next() {
            if case .record(let record) = event, !record.fields.allSatisfy({ $0.isEmpty }) {
                headerRecord = record
            }
        }
        guard let headerRecord else {
            throw Diagnostic(file: reader.displayName, line: 1, code: .emptyFile,
                             message: "the file is empty: it has no header row",
                             hint: "the first row must name the columns, e.g. code,name")
        }
        if headerRecord.line != 1 {
            warnings.append(Diagnostic(file: reader.displayName, line: 1, code: .blankRow,
                                       message: "blank lines before the header are skipped"))
        }
        var seen: [String: Int] = [:]
        for (index, name) in headerRecord.fields.enumerated() {
            let key = Self.normalizedName(name)
            if key.isEmpty {
                throw Diagnostic(file: reader.displayName, line: headerRecord.line, column: index + 1, code: .blankHeader,
                                 message: "column \(index + 1) has no name",
                                 hint: "name the column or delete it from the sheet")
            }
            if let first = seen[key] {
                throw Diagnostic(file: reader.displayName, line: headerRecord.line, column: index + 1,
                                 code: .duplicateHeader,
                                 message: "column \"\(name)\" appears twice (also column \(first + 1))",
                                 hint: "delete or rename one of the two columns")
            }
            seen[key] = index
        }
        self.header = headerRecord.fields
    }

    /// The header's form used for matching: lower case, without spaces, `_` and `-`.
    public static func normalizedName(_ name: String) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter {
            !($0 == " " || $0 == "_" || $0 == "-" || $0 == "\t" || $0 == "\u{A0}")
        }))
    }

    /// Hands over the warnings gathered so far.
    public func takeWarnings() -> [Diagnostic] {
        defer { warnings.removeAll() }
        return warnings
    }

    /// The next data row, skipping (and warning about) blank ones; nil at the end.
    public func next() throws(Diagnostic) -> CSVRow? {
        while let event = try reader.next() {
            switch event {
            case .blankLine(let line):
                warnings.append(blankRowWarning(line))
            case .record(let record):
                if record.fields.allSatisfy({ $0.isEmpty }) {
                    warnings.append(blankRowWarning(record.line))
                    continue
                }
                return shaped(record)
            }
        }
        return nil
    }

    private func blankRowWarning(_ line: Int) -> Diagnostic {
        Diagnostic(file: reader.displayName, line: line, code: .blankRow, message: "blank row skipped")
    }

    private func shaped(_ record: CSVRecord) -> CSVRow {
        let width = header.count
        var cells = record.fields
        var problem: Diagnostic?
        if cells.count > width {
            // Spreadsheets pad rows with empty cells; only cells with content are a problem.
            if let extra = cells[width...].firstIndex(where: { !$0.isEmpty }) {
                problem = Diagnostic(
                    file: reader.displayName, line: record.line, column: extra + 1, code: .extraCell,
                    message: "this row has \(cells.count) cells but the header names \(width) columns",
                    hint: "move the value into a named column or delete it")
            }
            cells.removeLast(cells.count - width)
        } else if cells.count < width {
            problem = Diagnostic(
                file: reader.displayName, line: record.line, column: cells.count + 1,
                field: header[cells.count], code: .missingCell,
                message: "this row has \(cells.count) cells but the header names \(width) columns; \"\(header[cells.count])\" and after are missing",
                hint: "a row must have a cell (possibly empty) for every column")
            cells.append(contentsOf: repeatElement("", count: width - cells.count))
        }
        return CSVRow(line: record.line, cells: cells, originalCells: record.fields, shapeProblem: problem)
    }
}
