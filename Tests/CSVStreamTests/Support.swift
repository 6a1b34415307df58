import CSVStream
import Foundation
import Testing

/// A fresh directory under the system temporary directory, removed when `body` returns.
func withScratchDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("crubatch-csvstream-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Writes `bytes` to a new temporary file, runs `body` with its path, then removes it.
func withTemporaryFile<R>(_ bytes: [UInt8], _ body: (String) throws -> R) throws -> R {
    try withScratchDirectory { directory in
        let path = directory + "/input.csv"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try body(path)
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

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
    var rows: [CSVRow] = []
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

/// The SHA-256 of a file according to coreutils' sha256sum.
func sha256sum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
