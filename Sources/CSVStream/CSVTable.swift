/// Reads a CSV file as a table: checks the header (empty file, blank or duplicate names) and gives
/// rows of the header's width, reporting blank rows as warnings and wrong-width rows as errors.
public final class CSVTableReader: TableReader {
    public let reader: CSVReader
    private let tableHeader: TableHeader
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
        guard let headerRecord else { throw TableHeader.missing(file: reader.displayName) }
        if headerRecord.line != 1 {
            warnings.append(TableHeader.blankBefore(file: reader.displayName))
        }
        tableHeader = try TableHeader(names: headerRecord.fields, line: headerRecord.line, file: reader.displayName)
    }

    public var displayName: String { reader.displayName }
    public var sheet: String? { nil }
    public var header: [String] { tableHeader.names }
    public var bytesRead: Int { reader.bytesRead }
    public var totalBytes: Int { reader.fileSize }
    public var sha256Hex: String? { reader.sha256Hex }

    public func takeWarnings() -> [Diagnostic] {
        defer { warnings.removeAll() }
        return warnings
    }

    public func next() throws(Diagnostic) -> TableRow? {
        while let event = try reader.next() {
            switch event {
            case .blankLine(let line):
                warnings.append(tableHeader.blankRows(line...line))
            case .record(let record):
                if record.fields.allSatisfy({ $0.isEmpty }) {
                    warnings.append(tableHeader.blankRows(record.line...record.line))
                    continue
                }
                return tableHeader.fit(record.fields, line: record.line)
            }
        }
        return nil
    }
}
