import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

/// One test per diagnostic the reader and table layers produce: code, line and column.
@Suite("reader and table diagnostics")
struct DiagnosticTests {
    // MARK: malformed-csv

    @Test("an unterminated quote is reported on the line where it opened")
    func unterminatedQuote() throws {
        let outcome = try read("code,name\nA1,Alpha\nB2,\"Beta\nstill beta\nC3,Gamma\n")
        let error = try #require(outcome.error)
        #expect(error.code == .malformedCSV)
        #expect(error.line == 3)
        #expect(error.column == 2)
        #expect(error.severity == .error)
        #expect(error.message.contains("never closed"))
        // Records before the problem are still yielded.
        #expect(outcome.records.map(\.line) == [1, 2])
    }

    @Test("an unterminated quote opened on a line that also closes another is reported there")
    func unterminatedQuoteAfterAClosedOne() throws {
        // Line 2 opens a quote, line 3 closes it and opens a new one that never closes.
        let outcome = try read("code,notes\n\"A\nB\",\"C\nD\n")
        let error = try #require(outcome.error)
        #expect(error.code == .malformedCSV)
        #expect(error.line == 3)
        #expect(error.column == 2)
    }

    @Test("an unterminated quote in a file without a final newline")
    func unterminatedQuoteAtEndOfFile() throws {
        let outcome = try read("a,b\n1,2\n3,\"4")
        let error = try #require(outcome.error)
        #expect(error.code == .malformedCSV)
        #expect(error.line == 3)
        #expect(error.column == 2)
    }

    @Test("a stray quote inside an unquoted cell")
    func strayQuote() throws {
        let outcome = try read("code,name\nA1,ab\"c\nB2,ok\n")
        let error = try #require(outcome.error)
        #expect(error.code == .malformedCSV)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(error.message.contains("stray quote"))
        #expect(outcome.records.map(\.line) == [1])
    }

    @Test("text after a closing quote is a stray quote, located on its physical line")
    func textAfterClosingQuote() throws {
        let outcome = try read("a,b\n\"x\ny\",\"ab\"c\n")
        let error = try #require(outcome.error)
        #expect(error.code == .malformedCSV)
        #expect(error.line == 3)
        #expect(error.column == 2)
    }

    // MARK: encoding-error

    static let latin1OnLineThree: [UInt8] = bytes("a,b\n1,2\nx,caf") + [0xE9] + bytes(",more\n4,5\n")

    @Test("a Windows-1252 byte in a UTF-8 read is located by line, cell and byte offset")
    func encodingError() throws {
        let outcome = try read(Self.latin1OnLineThree)
        let error = try #require(outcome.error)
        #expect(error.code == .encodingError)
        #expect(error.line == 3)
        #expect(error.column == 2)
        #expect(error.message.contains("0xE9"))
        #expect(error.message.contains("byte offset 13"))
        #expect(error.hint?.contains("--encoding windows-1252") == true)
        #expect(outcome.records.map(\.line) == [1, 2])
    }

    @Test("the encoding error's location does not depend on where chunks end", arguments: 16...40)
    func encodingErrorAcrossChunks(chunkSize: Int) throws {
        let content = bytes("\u{FEFF}name,note\nAnn,ok\nBob,ça va\nEve,caf") + [0xE9] + bytes("\n")
        let outcome = try read(content, options: .init(chunkSize: chunkSize))
        let error = try #require(outcome.error)
        #expect(error.code == .encodingError)
        #expect(error.line == 4)
        #expect(error.column == 2)
        // The offset counts the BOM: it is a position in the file as it is on disk.
        let offset = content.firstIndex(of: 0xE9)!
        #expect(error.message.contains("byte offset \(offset)"), "\(error.message)")
    }

    @Test("an invalid byte at the very end of the file")
    func encodingErrorAtEndOfFile() throws {
        let outcome = try read(bytes("a,b\n1,caf") + [0xC3])
        let error = try #require(outcome.error)
        #expect(error.code == .encodingError)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(error.message.contains("byte offset 9"))
    }

    @Test("overlong and truncated UTF-8 sequences are rejected")
    func invalidSequences() throws {
        for bad: [UInt8] in [[0xC3, 0x28], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
            let outcome = try read(bytes("a\nx") + bad + bytes("\n"))
            let error = try #require(outcome.error, "\(bad) was accepted")
            #expect(error.code == .encodingError)
            #expect(error.line == 2)
        }
    }

    // MARK: nul-byte

    @Test("a NUL byte is located by line and cell")
    func nulByte() throws {
        let outcome = try read(bytes("a,b\nc,d") + [0] + bytes("e\n"))
        let error = try #require(outcome.error)
        #expect(error.code == .nulByte)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(error.message.contains("byte offset 7"))
    }

    @Test("a NUL byte's offset in a Windows-1252 file counts the file's bytes, not converted ones")
    func nulByteInWindows1252() throws {
        let content = bytes("a,b\ncaf") + [0xE9, 0x80] + bytes(",d") + [0] + bytes("\n")
        let outcome = try read(content, options: .init(encoding: .windows1252))
        let error = try #require(outcome.error)
        #expect(error.code == .nulByte)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(error.message.contains("byte offset \(content.firstIndex(of: 0)!)"), "\(error.message)")
    }

    // MARK: field-too-long

    @Test("a cell over the limit")
    func fieldTooLong() throws {
        let options = CSVReader.Options(maxFieldBytes: 100)
        let outcome = try read("code,notes\nA1," + String(repeating: "x", count: 150) + "\n", options: options)
        let error = try #require(outcome.error)
        #expect(error.code == .fieldTooLong)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(error.message.contains("100 bytes"))
        // The record holding the over-long cell is not yielded before the error.
        #expect(outcome.records.map(\.line) == [1])

        let atLimit = try read("code,notes\nA1," + String(repeating: "x", count: 100) + "\n", options: options)
        #expect(atLimit.error == nil)
        #expect(atLimit.records.last?.fields[1].utf8.count == 100)
    }

    @Test("a never-closed quote that runs over the limit is reported where the quote opened")
    func fieldTooLongFromOpenQuote() throws {
        let text = "code,notes\nA1,ok\nB2,\"" + String(repeating: "0123456789\n", count: 30)
        let outcome = try read(text, options: .init(maxFieldBytes: 100))
        let error = try #require(outcome.error)
        #expect(error.code == .fieldTooLong)
        #expect(error.line == 3)
        #expect(error.column == 2)
    }

    @Test("a closed multi-line cell over the limit is reported where it starts")
    func fieldTooLongMultiLine() throws {
        let text = "code,notes\nA1,\"start\n" + String(repeating: "y", count: 150) + "\"\nB2,ok\n"
        let outcome = try read(text, options: .init(maxFieldBytes: 100))
        let error = try #require(outcome.error)
        #expect(error.code == .fieldTooLong)
        #expect(error.line == 2)
        #expect(error.column == 2)
        #expect(outcome.records.map(\.line) == [1])
    }

    @Test("a real cell over 1 MiB with the default limit")
    func fieldOverOneMebibyte() throws {
        var content = bytes("code,notes\nA1,ok\n")
        content += [UInt8](repeating: UInt8(ascii: "z"), count: (1 << 20) + 10)
        content += bytes(",B2\n")
        let outcome = try read(content)
        let error = try #require(outcome.error)
        #expect(error.code == .fieldTooLong)
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.message.contains("\(1 << 20) bytes"))
        #expect(outcome.records.map(\.line) == [1, 2])
    }

    // MARK: empty-file

    @Test("a 0-byte file is empty-file")
    func emptyFile() throws {
        let outcome = try readTable([UInt8]())
        let error = try #require(outcome.error)
        #expect(error.code == .emptyFile)
        #expect(error.line == 1)
        #expect(error.column == nil)
        #expect(error.code.isFatalToFile)
    }

    @Test("a file holding only a BOM, or only blank lines, is empty-file")
    func bomOnlyFile() throws {
        for content in [[0xEF, 0xBB, 0xBF], [0xEF, 0xBB, 0xBF] + bytes("\r\n\r\n"), bytes("\n\n,,\n")] {
            let outcome = try readTable(content)
            #expect(outcome.error?.code == .emptyFile, "\(content)")
            #expect(outcome.error?.line == 1)
        }
    }

    // MARK: blank-header, duplicate-header

    @Test("a header cell with no name")
    func blankHeader() throws {
        let outcome = try readTable("code,,name\n1,2,3\n")
        let error = try #require(outcome.error)
        #expect(error.code == .blankHeader)
        #expect(error.line == 1)
        #expect(error.column == 2)
        #expect(error.code.isFatalToFile)
    }

    @Test("a header cell of spaces is blank, on the header's own line")
    func blankHeaderAfterBlankLines() throws {
        let outcome = try readTable("\n\ncode,name,  \n1,2,3\n")
        let error = try #require(outcome.error)
        #expect(error.code == .blankHeader)
        #expect(error.line == 3)
        #expect(error.column == 3)
    }

    @Test("`First Name` and `first_name` are the same column")
    func duplicateHeader() throws {
        let outcome = try readTable("First Name,email,first_name\nAnn,a@x.org,Ann\n")
        let error = try #require(outcome.error)
        #expect(error.code == .duplicateHeader)
        #expect(error.line == 1)
        #expect(error.column == 3)
        #expect(error.message.contains("first_name"))
        #expect(error.message.contains("column 1"))
    }

    @Test("header names normalise case, spaces, _ and -")
    func normalizedNames() {
        #expect(TableHeader.normalizedName("First Name") == "firstname")
        #expect(TableHeader.normalizedName("first_name") == "firstname")
        #expect(TableHeader.normalizedName("E-Mail") == "email")
        #expect(TableHeader.normalizedName("  ") == "")
    }

    // MARK: extra-cell, missing-cell

    @Test("a row with a cell past the header's width")
    func extraCell() throws {
        let outcome = try readTable("a,b\n1,2\n3,4,5\n6,7,,\n8,9,,x\n")
        #expect(outcome.error == nil)
        #expect(outcome.rows.map(\.line) == [2, 3, 4, 5])
        #expect(outcome.rows[0].problems.isEmpty)

        let extra = try #require(outcome.rows[1].problems.first)
        #expect(extra.code == .extraCell)
        #expect(extra.line == 3)
        #expect(extra.column == 3)
        #expect(outcome.rows[1].cells == ["3", "4"])
        #expect(outcome.rows[1].originalCells == ["3", "4", "5"])

        // Trailing empty cells (spreadsheet padding) are not a problem.
        #expect(outcome.rows[2].problems.isEmpty)
        #expect(outcome.rows[2].cells == ["6", "7"])

        let late = try #require(outcome.rows[3].problems.first)
        #expect(late.code == .extraCell)
        #expect(late.column == 4)
    }

    @Test("a row with fewer cells than the header")
    func missingCell() throws {
        let outcome = try readTable("a,b,c\n1\n1,2,3\n")
        #expect(outcome.error == nil)
        let problem = try #require(outcome.rows.first?.problems.first)
        #expect(problem.code == .missingCell)
        #expect(problem.line == 2)
        #expect(problem.column == 2)
        #expect(problem.field == "b")
        #expect(problem.severity == .error)
        #expect(!problem.code.isFatalToFile)
        #expect(outcome.rows[0].cells == ["1", "", ""])
        #expect(outcome.rows[0].originalCells == ["1"])
        #expect(outcome.rows[1].problems.isEmpty)
    }

    // MARK: blank-row

    @Test("empty lines and lines of only commas are blank-row warnings and skipped")
    func blankRows() throws {
        let outcome = try readTable("a,b\n1,2\n\n3,4\n,\n5,6\r\n\r\n7,8")
        #expect(outcome.error == nil)
        #expect(outcome.rows.map(\.line) == [2, 4, 6, 8])
        #expect(outcome.rows.map(\.cells) == [["1", "2"], ["3", "4"], ["5", "6"], ["7", "8"]])
        #expect(outcome.warnings.map(\.line) == [3, 5, 7])
        #expect(outcome.warnings.allSatisfy { $0.code == .blankRow && $0.severity == .warning && $0.column == nil })
    }

    @Test("blank lines before the header are one warning")
    func blankLinesBeforeHeader() throws {
        let outcome = try readTable("\n\nname\nAnn\n")
        #expect(outcome.header == ["name"])
        #expect(outcome.rows.map(\.line) == [4])
        #expect(outcome.warnings.map(\.code) == [.blankRow])
    }

    @Test("diagnostics render as file:line:column: severity[code]: message")
    func rendering() throws {
        let outcome = try withTemporaryFile(bytes("a,b\n1,ab\"c\n")) { path in
            try read(path: path, options: .init(displayName: "people.csv"))
        }
        let error = try #require(outcome.error)
        #expect(error.file == "people.csv")
        #expect(error.rendered.hasPrefix("people.csv:2:2: error[malformed-csv]: "))
        #expect(error.rendered.contains("\n  hint: "))
    }
}
