import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

/// Everything a `CSVReader` produced for one file.
struct ReadOutcome {
    var events: [CSVReader.Event] = []
    /// The fatal problem `next()` threw, if any.
    var error: Diagnostic?
    var delimiter: UInt8 = 0
    var sha256: String?
    var bytesRead = 0
    var fileSize = 0

    var records: [CSVRecord] {
        events.compactMap { if case .record(let record) = $0 { record } else { nil } }
    }

    var blankLines: [Int] {
        events.compactMap { if case .blankLine(let line) = $0 { line } else { nil } }
    }
}

/// Reads a whole file with `CSVReader`, collecting events and the fatal diagnostic (if any).
func read(path: String, options: CSVReader.Options = .init()) throws -> ReadOutcome {
    let reader = try CSVReader(path: path, options: options)
    var outcome = ReadOutcome()
    do {
        while let event = try reader.next() { outcome.events.append(event) }
    } catch {
        outcome.error = error
        // After its fatal problem a reader is finished.
        #expect(try reader.next() == nil)
    }
    outcome.delimiter = reader.delimiter
    outcome.sha256 = reader.sha256Hex
    outcome.bytesRead = reader.bytesRead
    outcome.fileSize = reader.fileSize
    return outcome
}

func read(_ content: [UInt8], options: CSVReader.Options = .init()) throws -> ReadOutcome {
    try withTemporaryFile(content) { try read(path: $0, options: options) }
}

func read(_ text: String, options: CSVReader.Options = .init()) throws -> ReadOutcome {
    try read(bytes(text), options: options)
}

/// What a `CSVTableReader` produced: header, rows and warnings, or the diagnostic it threw.
struct TableOutcome {
    var header: [String] = []
    var rows: [TableRow] = []
    var warnings: [Diagnostic] = []
    var error: Diagnostic?
}

func readTable(_ content: [UInt8], options: CSVReader.Options = .init()) throws -> TableOutcome {
    try withTemporaryFile(content) { path in
        var outcome = TableOutcome()
        do {
            let table = try CSVTableReader(reader: CSVReader(path: path, options: options))
            outcome.header = table.header
            while let row = try table.next() { outcome.rows.append(row) }
            outcome.warnings = table.takeWarnings()
            #expect(table.takeWarnings().isEmpty, "takeWarnings drains")
        } catch let error as Diagnostic {
            outcome.error = error
        }
        return outcome
    }
}

func readTable(_ text: String, options: CSVReader.Options = .init()) throws -> TableOutcome {
    try readTable(bytes(text), options: options)
}

