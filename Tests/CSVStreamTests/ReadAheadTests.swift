import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

@Suite("TableReadAhead")
struct ReadAheadTests {
    /// A header and `count` data rows, with a blank line (a warning) after the first.
    static func file(rows count: Int) -> String {
        "name,number\nrow 1,1\n\n" + (2...max(2, count)).map { "row \($0),\($0)\n" }.joined()
    }

    @Test("hands out every row in file order, in batches, as reading the table itself does",
          arguments: [1, 7, 64, 1000])
    func sameRows(rowsPerBatch: Int) throws {
        let text = Self.file(rows: 300)
        let direct = try readTable(text)
        #expect(direct.rows.count == 300 && direct.warnings.map(\.line) == [3])
        try withTemporaryFile(bytes(text)) { path in
            let table = try CSVTableReader(reader: CSVReader(path: path))
            let rows = TableReadAhead(table, rowsPerBatch: rowsPerBatch, batchesAhead: 2)
            var read: [TableRow] = []
            var bytesSeen: [Int] = []
            while let batch = try rows.next() {
                #expect(batch.rows.count <= rowsPerBatch)
                read += batch.rows
                bytesSeen.append(batch.bytesRead)
            }
            #expect(read == direct.rows)
            #expect(bytesSeen == bytesSeen.sorted(), "how far the reader was only grows")
            // Once the rows ran out, the table is the caller's again: its warnings and checksum.
            let warnings = table.takeWarnings()
            #expect(warnings.map(\.line) == [3] && warnings.map(\.code) == direct.warnings.map(\.code))
            #expect(table.sha256Hex != nil)
        }
    }

    @Test("a file that cannot be read further hands out the rows before the problem, then throws it")
    func failureAfterRows() throws {
        let content = bytes(Self.file(rows: 50) + "bad,caf") + [0xE9] + bytes("\nlast,1\n")
        try withTemporaryFile(content) { path in
            let table = try CSVTableReader(reader: CSVReader(path: path))
            let rows = TableReadAhead(table, rowsPerBatch: 8)
            var read: [TableRow] = []
            let error = #expect(throws: Diagnostic.self) {
                while let batch = try rows.next() { read += batch.rows }
            }
            #expect(error?.code == .encodingError)
            #expect(error?.line == 53)
            #expect(read.map(\.line) == [2] + Array(4...52))
        }
    }

    @Test("finish() stops the reader early; the table is the caller's again and reads on where it stopped")
    func finishEarly() throws {
        try withTemporaryFile(bytes(Self.file(rows: 5000))) { path in
            let table = try CSVTableReader(reader: CSVReader(path: path))
            let rows = TableReadAhead(table, rowsPerBatch: 16, batchesAhead: 2)
            let first = try #require(try rows.next())
            #expect(first.rows.first?.line == 2)
            rows.finish()
            rows.finish()
            // At most the batches waiting and the one being read were taken from the table.
            let next = try #require(try table.next())
            #expect(next.line > first.rows.last!.line)
            #expect(next.line <= first.rows.last!.line + 16 * 4)
        }
    }

    @Test("a table that reads ahead itself is read on the caller's thread; any other on a thread of its own",
          arguments: [true, false])
    func readingThread(readsAhead: Bool) throws {
        try withTemporaryFile(bytes(Self.file(rows: 100))) { path in
            let table = ThreadNotingTable(try CSVTableReader(reader: CSVReader(path: path)), readsAhead: readsAhead)
            let rows = TableReadAhead(table, rowsPerBatch: 10)
            var count = 0
            while let batch = try rows.next() { count += batch.rows.count }
            #expect(count == 100)
            let caller = ObjectIdentifier(Thread.current)
            #expect(table.threads == (readsAhead ? [caller] : table.threads.subtracting([caller])))
            #expect(!table.threads.isEmpty)
        }
    }
}

/// A CSV table that says whether it reads ahead and notes the threads that read it.
private final class ThreadNotingTable: TableReader {
    private let table: CSVTableReader
    let readsAhead: Bool
    private(set) var threads: Set<ObjectIdentifier> = []

    init(_ table: CSVTableReader, readsAhead: Bool) {
        self.table = table
        self.readsAhead = readsAhead
    }

    var displayName: String { table.displayName }
    var sheet: String? { table.sheet }
    var header: [String] { table.header }
    var bytesRead: Int { table.bytesRead }
    var totalBytes: Int { table.totalBytes }
    var sha256Hex: String? { table.sha256Hex }
    func takeWarnings() -> [Diagnostic] { table.takeWarnings() }

    func next() throws(Diagnostic) -> TableRow? {
        threads.insert(ObjectIdentifier(Thread.current))
        return try table.next()
    }
}
