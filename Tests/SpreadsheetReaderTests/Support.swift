import CSVStream
import CruBatchTestSupport
import Foundation
import SpreadsheetReader

/// Builds .xlsx packages from raw XML parts, zipped by Python's zipfile (a ZIP writer independent of
/// the one we read with), so a test controls every byte a generator might write.
struct PackageBuilder {
    var sheets: [(name: String, state: String, rows: String)] = []
    var sharedStrings: [String]?
    /// Custom number formats (id, code) and each cell style's number format id (style 0 first).
    var numberFormats: [(id: Int, code: String)] = []
    var cellStyles: [Int] = [0]
    var date1904 = false

    mutating func addSheet(_ name: String, state: String = "visible", rows: String) {
        sheets.append((name, state, rows))
    }

    var parts: [String: String] {
        let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
        let relations = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        var parts: [String: String] = [:]
        var entries = ""
        var links = ""
        for (index, sheet) in sheets.enumerated() {
            entries += #"<sheet name="\#(escaped(sheet.name))" sheetId="\#(index + 1)" state="\#(sheet.state)" r:id="rId\#(index + 1)"/>"#
            links += #"<Relationship Id="rId\#(index + 1)" Type="\#(relations)/worksheet" Target="worksheets/sheet\#(index + 1).xml"/>"#
            parts["xl/worksheets/sheet\(index + 1).xml"] = #"<worksheet xmlns="\#(main)"><sheetData>\#(sheet.rows)</sheetData></worksheet>"#
        }
        parts["xl/workbook.xml"] = #"<workbook xmlns="\#(main)" xmlns:r="\#(relations)"><workbookPr\#(date1904 ? #" date1904="1""# : "")/><sheets>\#(entries)</sheets></workbook>"#
        if let sharedStrings {
            links += #"<Relationship Id="rIdS" Type="\#(relations)/sharedStrings" Target="sharedStrings.xml"/>"#
            parts["xl/sharedStrings.xml"] = #"<sst xmlns="\#(main)">\#(sharedStrings.joined())</sst>"#
        }
        parts["xl/_rels/workbook.xml.rels"] = #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\#(links)</Relationships>"#
        let formats = numberFormats.map { #"<numFmt numFmtId="\#($0.id)" formatCode="\#(escaped($0.code))"/>"# }.joined()
        let styles = cellStyles.map { #"<xf numFmtId="\#($0)" fontId="0"/>"# }.joined()
        parts["xl/styles.xml"] = #"<styleSheet xmlns="\#(main)"><numFmts>\#(formats)</numFmts><cellStyleXfs><xf numFmtId="14"/></cellStyleXfs><cellXfs>\#(styles)</cellXfs></styleSheet>"#
        return parts
    }

    func write(to path: String) throws {
        try writeZip(parts, to: path)
    }
}

/// Zips parts (name → text) into `path` with Python's zipfile. `claimedSizes` are uncompressed sizes
/// the central directory states instead of the true ones (as decimal text: up to 2^64 - 1, in ZIP64);
/// the parts named in `damaged` get a CRC-32 there that their bytes do not have.
func writeZip(_ parts: [String: String], to path: String, claimedSizes: [String: String] = [:],
              damaged: [String] = []) throws {
    let spec = try JSONSerialization.data(withJSONObject: ["path": path, "parts": parts, "sizes": claimedSizes,
                                                           "damaged": damaged])
    _ = try Python.run(script: """
        import json, sys, zipfile
        spec = json.load(sys.stdin)
        with zipfile.ZipFile(spec["path"], "w", zipfile.ZIP_DEFLATED) as package:
            for name, text in spec["parts"].items():
                package.writestr(name, text)
            for name, size in spec["sizes"].items():
                package.getinfo(name).file_size = int(size)
            for name in spec["damaged"]:
                package.getinfo(name).CRC ^= 1
        """, input: spec)
}

func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
        .replacingOccurrences(of: "<", with: "&lt;")
}

/// A row of inline-string cells, `<row r="N">`, from column A.
func textRow(_ number: Int, _ texts: [String]) -> String {
    let cells = texts.enumerated().map { index, text in
        #"<c r="\#(Diagnostic.columnLetters(index + 1))\#(number)" t="inlineStr"><is><t>\#(escaped(text))</t></is></c>"#
    }
    return #"<row r="\#(number)">\#(cells.joined())</row>"#
}

/// What a table reader produced: header, rows and warnings, or what it threw.
struct SheetOutcome {
    var header: [String] = []
    var rows: [TableRow] = []
    var warnings: [Diagnostic] = []
    var sheet: String?
    var diagnostic: Diagnostic?
}

/// Reads a whole workbook (its first sheet, or `sheet`) through `TableFile`, or with `limits` of its own.
func readWorkbook(_ path: String, sheet: String? = nil, limits: WorkbookLimits? = nil) throws -> SheetOutcome {
    var outcome = SheetOutcome()
    do {
        let table = try limits.map {
            try XLSXTableReader(path: path, displayName: "book.xlsx", sheet: sheet, limits: $0)
        } ?? TableFile.open(path: path, options: CSVReader.Options(displayName: "book.xlsx"), sheet: sheet)
        outcome.header = table.header
        outcome.sheet = table.sheet
        outcome.warnings = table.takeWarnings()
        while let row = try table.next() { outcome.rows.append(row) }
        outcome.warnings += table.takeWarnings()
    } catch let diagnostic as Diagnostic {
        outcome.diagnostic = diagnostic
    }
    return outcome
}

/// Builds a package into a scratch folder and reads it.
func read(_ builder: PackageBuilder, sheet: String? = nil, limits: WorkbookLimits? = nil) throws -> SheetOutcome {
    try read(builder.parts, sheet: sheet, limits: limits)
}

/// Zips parts into a scratch folder and reads them as a workbook.
func read(_ parts: [String: String], sheet: String? = nil, limits: WorkbookLimits? = nil) throws -> SheetOutcome {
    try withScratchDirectory { folder in
        try writeZip(parts, to: folder + "/book.xlsx")
        return try readWorkbook(folder + "/book.xlsx", sheet: sheet, limits: limits)
    }
}
