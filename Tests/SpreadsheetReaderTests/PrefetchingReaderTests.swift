import CSVStream
import CruBatchTestSupport
import Foundation
import SpreadsheetReader
import Testing

/// A CSV file opened by `TableFile` is read on a thread of its own; what the caller sees must be
/// what the CSV reader itself hands out, step by step.
@Suite("CSV rows read ahead on a thread of their own")
struct PrefetchingReaderTests {
    let scratch = ScratchDirectory()

    /// Each call of `next()` as the caller sees it: the row (nil at the end or at the failure) and
    /// the warnings taken right after it; the header's warnings first, then the failure, if any, and
    /// the file's SHA-256.
    struct Steps: Equatable {
        struct Step: Equatable {
            var row: TableRow?
            var warnings: [Diagnostic]
        }
        var header: [String] = []
        var steps: [Step] = []
        var failure: Diagnostic?
        var sha256: String?
        var bytesRead = 0
    }

    func steps(of table: any TableReader) -> Steps {
        var seen = Steps(header: table.header)
        seen.steps.append(Steps.Step(row: nil, warnings: table.takeWarnings()))
        do {
            while let row = try table.next() {
                seen.steps.append(Steps.Step(row: row, warnings: table.takeWarnings()))
            }
        } catch {
            seen.failure = error
        }
        seen.steps.append(Steps.Step(row: nil, warnings: table.takeWarnings()))
        seen.sha256 = table.sha256Hex
        seen.bytesRead = table.bytesRead
        return seen
    }

    func compare(_ text: String, options: CSVReader.Options = .init()) throws -> Steps {
        let path = try scratch.writeFile("table.csv", text)
        let direct = steps(of: try CSVTableReader(reader: CSVReader(path: path, options: options)))
        let prefetched = steps(of: try TableFile.open(path: path, options: options))
        #expect(prefetched == direct)
        return direct
    }

    /// Rows across several batches, blank lines and blank rows at and around batch edges, a short
    /// row and a long one.
    @Test("the same rows and warnings in the same order")
    func sameSteps() throws {
        var text = "email,first_name,last_name\n\n"
        for line in 1...1_300 {
            switch line {
            case 255, 256, 257, 512, 1_000: text += "\n"
            case 300, 768: text += ",,\n"
            case 400: text += "short@x.edu\n"
            case 401: text += "long@x.edu,A,B,extra\n"
            default: text += "s\(line)@x.edu,\"First, \(line)\",Last\(line)\n"
            }
        }
        text += "\n\n"
        let seen = try compare(text)
        #expect(seen.failure == nil)
        #expect(seen.steps.count == 1 + 1_300 - 7 + 1)
        #expect(seen.steps.reduce(0) { $0 + $1.warnings.count } >= 7)
        #expect(seen.sha256 != nil)
    }

    /// Every CSV file of the fixtures, the staff's own sheets and the producers' exports among them
    /// (blank rows, BOMs, CRLF, quoted line breaks as they write them): the same steps either way.
    @Test("the fixtures' CSV files read the same either way")
    func fixtures() throws {
        let root = TestEnvironment.fixture("")
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".csv") }.sorted()
        #expect(files.count > 50)
        for file in files {
            let path = root + "/" + file
            guard let direct = try? CSVTableReader(reader: CSVReader(path: path)) else {
                #expect(throws: (any Error).self, "\(file)") { try TableFile.open(path: path) }
                continue
            }
            #expect(steps(of: try TableFile.open(path: path)) == steps(of: direct), "\(file)")
        }
    }

    /// A file the CSV reader cannot read past line 900: the rows before it, then its failure.
    @Test("the rows before a failure, then the failure")
    func failure() throws {
        var text = "email,notes\n"
        for line in 1...1_000 {
            text += line == 900 ? "bad@x.edu,\"\(String(repeating: "x", count: 300))\"\n" : "s\(line)@x.edu,ok\n"
        }
        var options = CSVReader.Options()
        options.maxFieldBytes = 200
        let seen = try compare(text, options: options)
        #expect(seen.failure?.line == 901)
        #expect(seen.steps.count == 1 + 899 + 1)
    }

    /// A caller that stops after a few rows of a long file lets the reader go; the thread reading
    /// ahead stops too instead of waiting forever for room in its queue.
    @Test("a caller that stops early")
    func stopsEarly() throws {
        let path = try scratch.writeFile("long.csv", "email\n" + (1...50_000).map { "s\($0)@x.edu\n" }.joined())
        for _ in 1...20 {
            let table = try TableFile.open(path: path)
            #expect(try table.next()?.cells == ["s1@x.edu"])
            #expect(try table.next()?.cells == ["s2@x.edu"])
        }
    }
}
