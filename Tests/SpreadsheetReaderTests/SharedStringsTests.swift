import CruBatchTestSupport
import Foundation
@testable import SpreadsheetReader
import Testing

/// The shared strings part is read by the scanner that reads sheets, which takes the plain XML
/// spreadsheet programs write and gives up on the rest; XMLParser then reads the part again from its
/// start. Either way each string is the same, and a broken part is refused with the same reason.
@Suite("shared strings: the scanner and its fallback")
struct SharedStringsTests {
    private static let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    private static let part = "xl/sharedStrings.xml"

    /// Zips `xml` as a package's shared strings part and reads it.
    private func read(_ xml: String, limits: WorkbookLimits = WorkbookLimits(),
                      damaged: Bool = false) throws -> Result<SharedStrings, WorkbookError> {
        try withScratchDirectory { folder in
            let path = folder + "/book.xlsx"
            try writeZip([Self.part: xml], to: path, damaged: damaged ? [Self.part] : [])
            return Result { () throws(WorkbookError) in
                try SharedStrings.read(from: try WorkbookPackage(path: path, limits: limits), part: Self.part)
            }
        }
    }

    private func texts(_ strings: SharedStrings) -> [String] {
        (0..<strings.count).map { strings[$0] ?? "<none>" }
    }

    /// Why the part is refused; nil when it was read.
    private func refusal(_ xml: String, limits: WorkbookLimits = WorkbookLimits(), damaged: Bool = false) throws -> String? {
        guard case .failure(.notAWorkbook(_, let reason)) = try read(xml, limits: limits, damaged: damaged) else { return nil }
        return reason
    }

    /// The same strings, as Excel writes them (which the scanner takes) and with a comment (which it
    /// leaves to XMLParser).
    static let forms: [(name: String, prolog: String, comment: String)] = [
        ("as Excel writes it, its declaration ended by CR LF", #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\r\n", ""),
        ("with a comment, read by XMLParser", "", "<!-- checked by Ruth -->"),
    ]

    @Test("rich text runs join without their phonetic guides; prefixes, entities and OOXML escapes read as XML and OOXML say",
          arguments: forms)
    func plainXML(_ form: (name: String, prolog: String, comment: String)) throws {
        let xml = form.prolog + """
            <x:sst xmlns:x="\(Self.main)" count="6" uniqueCount="6">\(form.comment)
            <x:si><x:t>Ana</x:t></x:si>
            <x:si><x:r><x:rPr><x:b/></x:rPr><x:t>Ren&#233;e</x:t></x:r><x:r><x:t xml:space="preserve"> &amp; Zo&#xEB;</x:t></x:r>\
            <x:rPh sb="0" eb="1"><x:t>れね</x:t></x:rPh><x:phoneticPr fontId="1"/></x:si>
            <x:si><x:t>a &lt;b&gt; &quot;c&quot; &apos;d&apos; &#x1F600;</x:t></x:si>
            <x:si><x:t xml:space="preserve"> line_x000D_&#10;break _x005F_x0041_ _x00E9_ </x:t></x:si>
            <x:si/>
            <x:si><x:rPh sb="0" eb="0"><x:t>ふりがな</x:t></x:rPh><x:t>after its guide</x:t></x:si>
            </x:sst>
            """
        let strings = try read(xml).get()
        #expect(texts(strings) == ["Ana", "Renée & Zoë", #"a <b> "c" 'd' 😀"#, " line\r\nbreak _x0041_ é ", "",
                                   "after its guide"])
        #expect(strings.oversizedIndex == nil)
    }

    @Test("XML only XMLParser takes (a comment in a string, a carriage return in text, a processing instruction) reads as XML says")
    func fallback() throws {
        let xml = #"<sst xmlns="\#(Self.main)"><si><t>Ana</t><!-- checked --></si>"#
            + "<si><t>two\r\nlines</t></si><?mso-application progid=\"Excel.Sheet\"?><si><t>x</t></si></sst>"
        #expect(texts(try read(xml).get()) == ["Ana", "two\nlines", "x"])
    }

    @Test("a string longer than a cell may be stops the reading there, counted as text after its entities",
          arguments: [("&amp;", 100), ("s", 1 << 20)])
    func oversized(piece: String, maxCellBytes: Int) throws {
        let fits = String(repeating: "é", count: maxCellBytes / 2), text = String(repeating: piece, count: maxCellBytes + 1)
        let xml = #"<sst xmlns="\#(Self.main)"><si><t>\#(fits)</t></si><si><t>\#(text)</t></si><si><t>after</t></si></sst>"#
        let strings = try read(xml, limits: WorkbookLimits(maxCellBytes: maxCellBytes)).get()
        #expect(strings.oversizedIndex == 1)
        #expect(texts(strings) == [fits])
    }

    @Test("a part that breaks off is refused with where it breaks, whether in a text, a tag or between strings", arguments: [
        "<si><t>Ana</t></si><si><t>Be",
        "<si><t>Ana</t></si><si><t",
        "<si><t>Ana</t></si>",
    ])
    func truncated(_ strings: String) throws {
        let reason = try #require(try refusal(#"<sst xmlns="\#(Self.main)">\#(strings)"#), "read")
        #expect(reason.hasPrefix("its shared strings cannot be read (malformed XML (XMLParser error "), "\(reason)")
        #expect(reason.contains(" at line 1, column "), "\(reason)")
    }

    @Test("XML that is not well formed is refused with where it breaks", arguments: [
        "<si><t>a < b</t></si>", "<si><t>Ana</si>", "<si><t>&nbsp;</t></si>", "<si><t>\u{FFFE}</t></si>",
    ])
    func malformed(_ string: String) throws {
        let xml = #"<sst xmlns="\#(Self.main)">"# + "\n<si><t>Ana</t></si>" + string + "</sst>"
        let reason = try #require(try refusal(xml), "read")
        #expect(reason.hasPrefix("its shared strings cannot be read (malformed XML (XMLParser error "), "\(reason)")
        #expect(reason.contains(" at line 2, column "), "\(reason)")
    }

    @Test("a part whose bytes cannot be had is refused with why: damaged, inflating past its limit, declaring a document type")
    func unreadablePart() throws {
        let xml = #"<sst xmlns="\#(Self.main)">"# + (0..<2000).map { "<si><t>string \($0 % 10)</t></si>" }.joined() + "</sst>"
        #expect(try refusal(xml, damaged: true)
                == "its shared strings cannot be read (xl/sharedStrings.xml is damaged (its checksum does not match))")
        let limits = WorkbookLimits(maxPartBytes: 10_000, maxInflationRatio: 1)
        #expect(try refusal(xml, limits: limits) == "its shared strings cannot be read "
                + "(xl/sharedStrings.xml inflates to more than 10000 bytes, more than crubatch reads from one part)")
        let declared = #"<!DOCTYPE sst [<!ENTITY a "b">]>"# + xml.replacingOccurrences(of: "string 1<", with: "&a;<")
        #expect(try refusal(declared)?.contains("xl/sharedStrings.xml: it declares a document type") == true)
    }

    @Test("strings past maxSharedStringBytes refuse the workbook")
    func overLimit() throws {
        let xml = #"<sst xmlns="\#(Self.main)">"# + (0..<40).map { "<si><t>string number \($0)</t></si>" }.joined() + "</sst>"
        #expect(try refusal(xml, limits: WorkbookLimits(maxSharedStringBytes: 300)) == "its shared strings take more "
                + "than 300 bytes of memory, more than crubatch holds (a CSV UTF-8 file has no such limit)")
        #expect(try read(xml, limits: WorkbookLimits(maxSharedStringBytes: 2000)).get().count == 40)
    }
}
