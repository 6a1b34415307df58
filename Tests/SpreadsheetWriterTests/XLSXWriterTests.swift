import CruBatchTestSupport
import Foundation
import SpreadsheetWriter
import Testing

@Suite("writing .xlsx workbooks")
struct XLSXWriterTests {
    @Test("sheet names are made valid for Excel: no []:*?/\\, no outer apostrophes, 31 characters, unique ignoring case")
    func sheetNames() {
        #expect(XLSXWriter.sheetName(for: "Fall [2026]: Men/Women?", taken: []) == "Fall 2026 MenWomen")
        #expect(XLSXWriter.sheetName(for: "'Quoted'", taken: []) == "Quoted")
        #expect(XLSXWriter.sheetName(for: "*?", taken: []) == "Sheet")
        let long = "Cal Poly Freshmen Men (Wednesday Night)"
        #expect(XLSXWriter.sheetName(for: long, taken: []) == "Cal Poly Freshmen Men (Wednesda")
        #expect(XLSXWriter.sheetName(for: long, taken: ["cal poly freshmen men (wednesda"]) == "Cal Poly Freshmen Men (Wedn (2)")
        #expect(XLSXWriter.sheetName(for: "Men", taken: ["Men", "MEN (2)"]) == "Men (3)")
        #expect(XLSXWriter.sheetName(for: "History", taken: []) == "History (2)")
        #expect(XLSXWriter.sheetName(for: String(repeating: "é", count: 40), taken: []).count == 31)
    }

    @Test("openpyxl reads typed text (never a formula), real dates, and the view and print settings")
    func readBack() throws {
        try withScratchDirectory { folder in
            let path = folder + "/book.xlsx"
            let writer = try XLSXWriter(path: path)
            let sheet = try writer.addSheet(named: "Members: Fall")
            try sheet.write("Name", row: 0, column: 0, style: XLSXWriter.Style(bold: true))
            try sheet.write("Joined", row: 0, column: 1, style: XLSXWriter.Style(bold: true))
            try sheet.write("=HYPERLINK(\"http://x\")", row: 1, column: 0)
            try sheet.write(year: 2026, month: 11, day: 22, row: 1, column: 1, style: XLSXWriter.Style(numberFormat: "yyyy-mm-dd"))
            try sheet.write("+18055550203", row: 2, column: 0, style: XLSXWriter.Style(fill: 0xFFC7CE))
            try sheet.comment("email: not a valid email address", row: 2, column: 0)
            try sheet.setWidth(30, columns: 0...0)
            sheet.freezeRows(above: 1)
            try sheet.autofilter(headerRow: 0, lastRow: 2, columns: 0...1)
            try sheet.printLandscape(repeatingRow: 0)
            try writer.close()

            let output = try Python.run(script: """
                import sys, openpyxl
                sheet = openpyxl.load_workbook(sys.argv[1])["Members Fall"]
                for ref in ["A1", "A2", "B2", "A3"]:
                    cell = sheet[ref]
                    print(ref, cell.data_type, type(cell.value).__name__, cell.value, cell.number_format, cell.font.b)
                print("A3 fill", sheet["A3"].fill.fill_type, sheet["A3"].fill.fgColor.rgb, "comment", sheet["A3"].comment.text,
                      "A2 fill", sheet["A2"].fill.fill_type, sheet["A2"].comment)
                print("freeze", sheet.freeze_panes, "filter", sheet.auto_filter.ref, sheet.page_setup.orientation,
                      "fit to page", sheet.sheet_properties.pageSetUpPr.fitToPage, "pages tall", sheet.page_setup.fitToHeight,
                      "titles", sheet.print_title_rows, "width", sheet.column_dimensions["A"].width)
                """, arguments: [path])
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines == [
                "A1 s str Name General True",
                #"A2 s str =HYPERLINK("http://x") General False"#,
                "B2 d datetime 2026-11-22 00:00:00 yyyy-mm-dd False",
                "A3 s str +18055550203 General False",
                "A3 fill solid FFFFC7CE comment email: not a valid email address A2 fill None None",
                // One page wide is the default width; 0 pages tall means as many as it takes.
                "freeze A2 filter A1:B3 landscape fit to page True pages tall 0 titles $1:$1 width 30.7109375",
            ])
        }
    }
}
