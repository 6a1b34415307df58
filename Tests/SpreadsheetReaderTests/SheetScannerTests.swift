import CruBatchTestSupport
import Foundation
import SpreadsheetReader
import Testing

/// A sheet's XML is read by crubatch's own scanner, which takes the plain XML spreadsheet programs
/// write and gives up on the rest; XMLParser then reads the sheet again from its start.
@Suite("worksheet XML: the scanner and its fallback")
struct SheetScannerTests {
    private static let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

    private func readSheet(_ xml: String) throws -> SheetOutcome {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: "")
        var parts = builder.parts
        parts["xl/worksheets/sheet1.xml"] = xml
        return try read(parts)
    }

    @Test("entities, character references, single quotes, empty cells and a declaration read as XML says")
    func plainXML() throws {
        let outcome = try readSheet("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <worksheet xmlns="\(Self.main)"><sheetData>
            <row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r='B1' t='inlineStr' ><is><t>note</t></is></c></row>
            <row r="2"><c r="A2" t="inlineStr"><is><t>Ren&#233;e &amp; Zo&#xEB;</t></is></c><c r="B2" t="inlineStr"><is><t>a &lt;b&gt; &quot;c&quot; &apos;d&apos; &#x1F600;</t></is></c></row>
            <row r="3"><c r="A3"/><c r="B3" t="inlineStr"><is><t xml:space="preserve">  two
            lines  </t></is></c></row>
            </sheetData></worksheet>
            """)
        #expect(outcome.diagnostic == nil)
        #expect(outcome.header == ["name", "note"])
        #expect(outcome.rows.map(\.cells) == [["Renée & Zoë", "a <b> \"c\" 'd' 😀"], ["", "  two\nlines  "]])
    }

    @Test("XML the scanner leaves to XMLParser after 1,500 rows (a comment, a processing instruction, a carriage return): every row once, as XML says")
    func fallbackAfterRowsHandedOut() throws {
        var rows = textRow(1, ["name"])
        for number in 2...1500 {
            switch number {
            case 1400: rows += "<!-- checked by Ruth -->" + textRow(number, ["row \(number)"])
            case 1450: rows += #"<?mso-application progid="Excel.Sheet"?>"# + textRow(number, ["row \(number)"])
            case 1460: rows += "<row r=\"1460\"><c r=\"A1460\" t=\"inlineStr\"><is><t>two\r\nlines</t></is></c></row>"
            default: rows += textRow(number, ["row \(number)"])
            }
        }
        let outcome = try readSheet(#"<worksheet xmlns="\#(Self.main)"><sheetData>\#(rows)</sheetData></worksheet>"#)
        #expect(outcome.diagnostic == nil)
        #expect(outcome.rows.count == 1499 && outcome.rows.map(\.line) == Array(2...1500))
        let expected = (2...1500).map { number in
            number == 1460 ? "two\nlines" : "row \(number)"
        }
        #expect(outcome.rows.map { $0.cells.first ?? "" } == expected)
    }

    @Test("XML that is not well formed after 1,000 good rows: those rows, then XMLParser's malformed-workbook at the row")
    func malformedAfterRows() throws {
        let rows = (2...1000).map { textRow($0, ["row \($0)"]) }.joined()
        let outcome = try readSheet(#"<worksheet xmlns="\#(Self.main)"><sheetData>"#
            + textRow(1, ["name"]) + rows + #"<row r="1001"><c r="A1001" t="inlineStr"><is><t>a < b</t></is></c></row></sheetData></worksheet>"#)
        #expect(outcome.rows.map(\.line) == Array(2...1000))
        let problem = try #require(outcome.diagnostic)
        #expect(problem.code == .malformedWorkbook)
        #expect(problem.line == 1001)
        #expect(problem.message.contains("malformed XML (XMLParser error"))
    }

    /// Sheets the scanner must not take: XMLParser refuses each.
    static let refused: [(String, String)] = [
        ("a declaration with an unknown standalone", #"<?xml version="1.0" standalone="maybe"?>"#),
        ("a declaration in the wrong order", #"<?xml standalone="yes" version="1.0"?>"#),
        ("a declaration without space between its parts", #"<?xml version="1.0"encoding="UTF-8"?>"#),
        ("a character reference before the root", "&#32;"),
    ]

    @Test("XML that XMLParser refuses is malformed-workbook with its diagnostic, whatever the scanner would take", arguments: refused)
    func refusedAsXMLParserSays(_ case: (name: String, prolog: String)) throws {
        let outcome = try readSheet(`case`.prolog + #"<worksheet xmlns="\#(Self.main)"><sheetData>"# + textRow(1, ["name"])
                                    + textRow(2, ["Ann"]) + "</sheetData></worksheet>")
        let problem = try #require(outcome.diagnostic, "\(`case`.name) was read")
        #expect(problem.code == .malformedWorkbook)
        #expect(problem.message.contains("malformed XML (XMLParser error"), "\(problem.message)")
    }

    @Test("cells XMLParser refuses: a signed hexadecimal reference, U+FFFE in an attribute")
    func refusedCells() throws {
        for cell in [#"<c r="A2" t="inlineStr"><is><t>&#x+41;</t></is></c>"#,
                     "<c r=\"A2\" t=\"inlineStr\" note=\"\u{FFFE}\"><is><t>Ann</t></is></c>"] {
            let outcome = try readSheet(#"<worksheet xmlns="\#(Self.main)"><sheetData>"# + textRow(1, ["name"])
                                        + #"<row r="2">\#(cell)</row></sheetData></worksheet>"#)
            let problem = try #require(outcome.diagnostic, "\(cell) was read")
            #expect(problem.message.contains("malformed XML (XMLParser error"), "\(problem.message)")
        }
    }

    @Test("a tag of 20,000 attributes still reads (the scanner leaves it to XMLParser)")
    func manyAttributes() throws {
        let attributes = (0..<20_000).map { " a\($0)=\"1\"" }.joined()
        let outcome = try readSheet(#"<worksheet xmlns="\#(Self.main)"><sheetData>"# + textRow(1, ["name"])
                                    + #"<row r="2"\#(attributes)><c r="A2" t="inlineStr"><is><t>Ann</t></is></c></row></sheetData></worksheet>"#)
        #expect(outcome.diagnostic == nil)
        #expect(outcome.rows.map(\.cells) == [["Ann"]])
    }
}
