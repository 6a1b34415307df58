import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

@Suite("CSVWriter")
struct WriterTests {
    @Test("cells are quoted only when they must be, with CRLF line ends")
    func quoting() {
        let writer = CSVWriter()
        #expect(writer.line(["a", "b c", " padded ", ""]) == "a,b c, padded ,\r\n")
        #expect(writer.line(["a,b"]) == "\"a,b\"\r\n")
        #expect(writer.line(["say \"hi\""]) == "\"say \"\"hi\"\"\"\r\n")
        #expect(writer.line(["two\nlines", "cr\rhere", "x"]) == "\"two\nlines\",\"cr\rhere\",x\r\n")
        #expect(writer.line(["é€😀"]) == "é€😀\r\n")
    }

    @Test("the delimiter decides what needs quotes")
    func otherDelimiter() {
        let writer = CSVWriter(delimiter: UInt8(ascii: ";"))
        #expect(writer.line(["a,b", "c;d", "e"]) == "a,b;\"c;d\";e\r\n")
    }

    @Test("a record of one empty cell is written as \"\" so it is not a blank line")
    func loneEmptyCell() throws {
        #expect(CSVWriter().line([""]) == "\"\"\r\n")
        #expect(CSVWriter().line(["", ""]) == ",\r\n")
        var output = bytes("note\r\n")
        CSVWriter().append([""], to: &output)
        let outcome = try read(output)
        #expect(outcome.records.map(\.fields) == [["note"], [""]])
        #expect(outcome.blankLines.isEmpty)
    }

    @Test("formula neutralisation prefixes ' to cells a spreadsheet would run")
    func formulas() {
        let writer = CSVWriter(neutralizeFormulas: true)
        #expect(writer.line(["=HYPERLINK(\"x\")"]) == "\"'=HYPERLINK(\"\"x\"\")\"\r\n")
        #expect(writer.line(["=1+2", "-5", "+1", "@a"]) == "'=1+2,'-5,'+1,'@a\r\n")
        #expect(writer.line(["\tx"]) == "'\tx\r\n")
        #expect(writer.line(["\rx"]) == "\"'\rx\"\r\n")
        #expect(writer.line(["a=b", "5-1", "", "plain"]) == "a=b,5-1,,plain\r\n")

        let plain = CSVWriter()
        #expect(plain.line(["=1+2", "-5"]) == "=1+2,-5\r\n")
    }

    @Test("append writes bytes to the end of a buffer")
    func appendBytes() {
        var output = bytes("h\r\n")
        CSVWriter().append(["x", "y"], to: &output)
        CSVWriter().append(["z"], to: &output)
        #expect(String(decoding: output, as: UTF8.self) == "h\r\nx,y\r\nz\r\n")
    }

    @Test("what the writer writes, the reader reads back unchanged")
    func roundTrip() throws {
        let rows: [[String]] = [
            ["name", "notes", "city"],
            ["a,b", "say \"hi\"", "Zürich"],
            ["line one\nline two", "crlf\r\ninside", "日本語"],
            ["", " spaced ", "\"\""],
            ["😀,\"\n", "tab\there", ";semi;"],
            ["=SUM(A1)", "-1", "+"],
            ["", "", ""],
            ["last", "", "x"],
        ]
        var output: [UInt8] = []
        let writer = CSVWriter()
        for row in rows { writer.append(row, to: &output) }
        let outcome = try read(output)
        #expect(outcome.error == nil)
        #expect(outcome.records.map(\.fields) == rows)

        for delimiter in [UInt8(ascii: ";"), UInt8(ascii: "\t")] {
            var other: [UInt8] = []
            let writer = CSVWriter(delimiter: delimiter)
            for row in rows { writer.append(row, to: &other) }
            let back = try read(other, options: .init(delimiter: delimiter))
            #expect(back.records.map(\.fields) == rows)
        }
    }
}
