import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

@Suite("CSVReader behaviour")
struct ReaderTests {
    @Test("a UTF-8 BOM is stripped from the first header name")
    func bomStripped() throws {
        let outcome = try read([0xEF, 0xBB, 0xBF] + bytes("name,email\nAnn,a@x.org\n"))
        #expect(outcome.error == nil)
        #expect(outcome.records.map(\.fields) == [["name", "email"], ["Ann", "a@x.org"]])
    }

    @Test("LF, CRLF and a mix read the same, and a missing final newline is fine")
    func lineEnds() throws {
        let expected = [["a", "b"], ["1", "2"], ["3", "4"]]
        for text in ["a,b\n1,2\n3,4\n", "a,b\r\n1,2\r\n3,4\r\n", "a,b\r\n1,2\n3,4", "a,b\n1,2\r\n3,4\r\n"] {
            let outcome = try read(text)
            #expect(outcome.error == nil)
            #expect(outcome.records.map(\.fields) == expected, "\(text.debugDescription)")
            #expect(outcome.records.map(\.line) == [1, 2, 3])
        }
    }

    @Test("spaces are data (RFC 4180), quoted or not")
    func spacesKept() throws {
        let outcome = try read("\" a \",b\n a , b \n\t,x\n")
        #expect(outcome.records.map(\.fields) == [[" a ", "b"], [" a ", " b "], ["\t", "x"]])
    }

    @Test("quoted cells keep delimiters, doubled quotes and newlines")
    func quotedCells() throws {
        let outcome = try read("a,b\n\"x,y\",\"say \"\"hi\"\"\"\n\"\",\"\"\n")
        #expect(outcome.records.map(\.fields) == [["a", "b"], ["x,y", "say \"hi\""], ["", ""]])
    }

    @Test("the delimiter is sniffed from the header line", arguments: [
        ("a;b;c\n1;2;3\n", ";"),
        ("a\tb\tc\n1\t2\t3\n", "\t"),
        ("a,b,c\n1,2,3\n", ","),
        ("\"x;y;z\",b\n1,2\n", ","),   // delimiters inside quotes do not count
        ("name;note\n\"a,b,c,d\";x\n", ";"),  // only the header line counts
        ("a,b;c\n", ","),              // a tie goes to the comma
        ("a;b\tc\n", ";"),             // then to the semicolon, every run
        ("single\n1\n", ","),
    ])
    func sniffing(text: String, delimiter: String) throws {
        let outcome = try read(text)
        #expect(outcome.error == nil)
        #expect(outcome.delimiter == delimiter.utf8.first!)
        let header = try #require(outcome.records.first)
        #expect(header.fields == text.prefix { $0 != "\n" }.replacingOccurrences(of: "\"", with: "")
            .split(separator: Character(delimiter), omittingEmptySubsequences: false).map(String.init))
    }

    @Test("an explicit delimiter overrides sniffing")
    func explicitDelimiter() throws {
        let semicolon = try read("a,b;c\n1,2;3\n", options: .init(delimiter: UInt8(ascii: ";")))
        #expect(semicolon.delimiter == UInt8(ascii: ";"))
        #expect(semicolon.records.map(\.fields) == [["a,b", "c"], ["1,2", "3"]])

        let comma = try read("a;b;c,d\n", options: .init(delimiter: UInt8(ascii: ",")))
        #expect(comma.records.map(\.fields) == [["a;b;c", "d"]])

        let tab = try read("a b\tc\n", options: .init(delimiter: UInt8(ascii: "\t")))
        #expect(tab.records.map(\.fields) == [["a b", "c"]])
    }

    @Test("records carry the physical line they start on, counting quoted newlines")
    func lineNumbers() throws {
        let text = "code,notes\nA1,\"one\ntwo\nthree\"\nB2,plain\n\"C\r\n3\",x\n\nD4,y"
        let outcome = try read(text)
        #expect(outcome.error == nil)
        #expect(outcome.records.map(\.line) == [1, 2, 5, 6, 9])
        #expect(outcome.records[1].fields == ["A1", "one\ntwo\nthree"])
        #expect(outcome.records[3].fields == ["C\r\n3", "x"])
        #expect(outcome.blankLines == [8])
    }

    @Test("Windows-1252 is converted when asked")
    func windows1252() throws {
        let content = bytes("name,price\nJos") + [0xE9] + bytes(",") + [0x80] + bytes("5\n") + [0x93, 0x71, 0x94] + bytes(",") + [0xFC, 0xDF] + bytes("\n")
        let outcome = try read(content, options: .init(encoding: .windows1252))
        #expect(outcome.error == nil)
        #expect(outcome.records.map(\.fields) == [["name", "price"], ["José", "€5"], ["“q”", "üß"]])
    }

    @Test("Windows-1252 across many small chunks")
    func windows1252SmallChunks() throws {
        let row = bytes("Ren") + [0xE9] + bytes(",") + [0x80] + bytes("1\n")
        let content = bytes("name,price\n") + Array([[UInt8]](repeating: row, count: 40).joined())
        let outcome = try read(content, options: .init(encoding: .windows1252, chunkSize: 16))
        #expect(outcome.error == nil)
        #expect(outcome.records.count == 41)
        #expect(outcome.records.dropFirst().allSatisfy { $0.fields == ["René", "€1"] })
        #expect(outcome.records.last?.line == 41)
    }

    @Test("multibyte characters split across chunk boundaries", arguments: 16...64)
    func multibyteAcrossChunks(chunkSize: Int) throws {
        let cells = ["é€😀ü", "ñ字ß", "Ελληνικά", "𝄞 music"]
        var text = "a,b,c,d\n"
        for _ in 0..<40 { text += cells.joined(separator: ",") + "\n" }
        let outcome = try read(text, options: .init(chunkSize: chunkSize))
        #expect(outcome.error == nil)
        #expect(outcome.records.count == 41)
        #expect(outcome.records.dropFirst().allSatisfy { $0.fields == cells })
        #expect(outcome.records.map(\.line) == Array(1...41))
    }

    @Test("200,000 rows: count, last line and last record")
    func manyRows() throws {
        let rowCount = 200_000
        var content = bytes("id,name,email\n")
        content.reserveCapacity(rowCount * 40)
        for index in 1...rowCount {
            content += bytes("\(index),Person \(index),p\(index)@example.org\n")
        }
        try withTemporaryFile(content) { path in
            let reader = try CSVReader(path: path)
            var count = 0
            var last: CSVRecord?
            while let event = try reader.next() {
                if case .record(let record) = event {
                    count += 1
                    last = record
                }
            }
            #expect(count == rowCount + 1)
            #expect(last == CSVRecord(line: rowCount + 1, fields: ["\(rowCount)", "Person \(rowCount)", "p\(rowCount)@example.org"]))
            #expect(reader.bytesRead == content.count)
            #expect(reader.fileSize == content.count)
        }
    }

    @Test("sha256Hex is the SHA-256 of the raw file, BOM included")
    func sha256OfFile() throws {
        let content = [0xEF, 0xBB, 0xBF] + bytes("name,city\nAnn,Zürich\n\"B\nb\",x\n")
        try withTemporaryFile(content) { path in
            let reader = try CSVReader(path: path, options: .init(chunkSize: 16))
            #expect(reader.sha256Hex == nil, "the digest is known only at the end")
            while try reader.next() != nil {}
            let expected = try sha256sum(path)
            #expect(expected.count == 64)
            #expect(reader.sha256Hex == expected)
        }
        let empty = try read([UInt8]())
        #expect(empty.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(empty.records.isEmpty)
    }

    @Test("a missing file is FileOpenError.notFound; a directory is unreadable")
    func openErrors() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/people.csv"
        #expect(throws: FileOpenError.notFound(path: missing)) { try CSVReader(path: missing) }
        let missingFile = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString).csv").path
        #expect(throws: FileOpenError.notFound(path: missingFile)) { try CSVReader(path: missingFile) }
        try withScratchDirectory { directory in
            do {
                _ = try CSVReader(path: directory)
                Issue.record("opening a directory succeeded")
            } catch let error as FileOpenError {
                guard case .unreadable(let path, _) = error else {
                    Issue.record("expected .unreadable, got \(error)")
                    return
                }
                #expect(path == directory)
            }
        }
    }

    @Test("the display name defaults to the path")
    func displayName() throws {
        try withTemporaryFile(bytes("a\n")) { path in
            let plain = try CSVReader(path: path)
            let named = try CSVReader(path: path, options: .init(displayName: "x.csv"))
            #expect(plain.displayName == path)
            #expect(named.displayName == "x.csv")
        }
    }
}
