import CSVStream
import CruBatchTestSupport
import Foundation
import SpreadsheetReader
import Testing

@Suite("reading .xlsx sheets")
struct WorkbookReaderTests {
    /// Styles: 0 General, 1 built-in date (14), 2 built-in time (20), 3 custom date and time,
    /// 4 custom `00000`, 5 custom time with AM/PM.
    private func styledBuilder() -> PackageBuilder {
        var builder = PackageBuilder()
        builder.numberFormats = [(164, #"yyyy\-mm\-dd\ hh:mm"#), (165, "00000"), (166, "h:mm AM/PM;@")]
        builder.cellStyles = [0, 14, 20, 164, 165, 166]
        return builder
    }

    @Test("cells read as the sheet shows them: strings, whole numbers as digits, booleans, dates, times, formulas")
    func cellTypes() throws {
        var builder = styledBuilder()
        builder.sharedStrings = [
            "<si><t>Ana</t></si>",
            // Rich text runs join; the phonetic guide is not text.
            "<si><r><t>María </t></r><r><rPr><b/></rPr><t>José</t></r><rPh><t>まりあ</t></rPh></si>",
            #"<si><t xml:space="preserve"> line_x000D_break _x005F_x0041_ </t></si>"#,
        ]
        let cells = [
            #"<c r="A2" t="s"><v>0</v></c>"#, #"<c r="B2" t="s"><v>1</v></c>"#, #"<c r="C2" t="s"><v>2</v></c>"#,
            #"<c r="D2"><v>8055550203</v></c>"#, #"<c r="E2" t="n"><v>3</v></c>"#, #"<c r="F2"><v>12.5</v></c>"#,
            #"<c r="G2"><v>0.30000000000000004</v></c>"#, #"<c r="H2" t="b"><v>1</v></c>"#,
            #"<c r="I2" s="1"><v>46348</v></c>"#, #"<c r="J2" s="2"><v>0.791666666666667</v></c>"#,
            #"<c r="K2" s="3"><v>46348.5</v></c>"#, #"<c r="L2" s="4"><v>123</v></c>"#,
            #"<c r="M2"><f>L2*2</f><v>246</v></c>"#, #"<c r="N2" t="str"><f>A2&amp;"!"</f><v>Ana!</v></c>"#,
            #"<c r="O2" t="e"><f>1/0</f><v>#DIV/0!</v></c>"#, #"<c r="P2" s="5"><v>0.8125</v></c>"#,
            // No reference: the cell after the previous one.
            #"<c t="inlineStr"><is><t>after P</t></is></c>"#,
            #"<c r="R2" t="str"><f>""</f><v></v></c>"#, #"<c r="S2" t="b"><v>0</v></c>"#,
        ]
        let header = (1...19).map { "c\($0)" }
        builder.addSheet("Sheet1", rows: textRow(1, header) + #"<row r="2">\#(cells.joined())</row>"#)
        let outcome = try read(builder)
        #expect(outcome.diagnostic == nil)
        #expect(outcome.header == header)
        let row = try #require(outcome.rows.first)
        #expect(row.line == 2)
        #expect(row.problems.isEmpty)
        #expect(row.cells == ["Ana", "María José", " line\rbreak _x0041_ ", "8055550203", "3", "12.5", "0.3", "TRUE",
                              "2026-11-22", "19:00", "2026-11-22T12:00:00", "00123", "246", "Ana!", "#DIV/0!", "19:30",
                              "after P", "", "FALSE"])
    }

    @Test("the 1904 date system shifts serial numbers by 1462 days")
    func dateSystem1904() throws {
        var builder = styledBuilder()
        builder.date1904 = true
        builder.addSheet("Sheet1", rows: textRow(1, ["day", "at"])
            + #"<row r="2"><c r="A2" s="1"><v>44886</v></c><c r="B2" s="3"><v>44886.75</v></c></row>"#)
        let outcome = try read(builder)
        #expect(outcome.rows.first?.cells == ["2026-11-22", "2026-11-22T18:00:00"])
    }

    @Test("the 1900 date system keeps Lotus's 29 February 1900: serial 59 is the 28th, 61 the 1st of March")
    func lotusLeapDay() throws {
        var builder = styledBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["a", "b", "c"])
            + #"<row r="2"><c r="A2" s="1"><v>1</v></c><c r="B2" s="1"><v>59</v></c><c r="C2" s="1"><v>61</v></c></row>"#)
        #expect(try read(builder).rows.first?.cells == ["1900-01-01", "1900-02-28", "1900-03-01"])
    }

    @Test("blank rows between rows are skipped with one warning per run; a sheet's empty cells are no missing-cell")
    func blankRows() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["a", "b", "c"]) + textRow(2, ["1"])
            + #"<row r="3"><c r="A3" s="0"/><c r="B3" t="inlineStr"><is><t></t></is></c></row>"#
            + textRow(5, ["5", "", "x"]) + textRow(7, ["7", "7", "7"])
            + #"<row r="8"><c r="A8" s="0"/></row><row r="9"/>"#)
        let outcome = try read(builder)
        #expect(outcome.rows.map(\.line) == [2, 5, 7])
        #expect(outcome.rows[0].cells == ["1", "", ""])
        #expect(outcome.rows.allSatisfy { $0.problems.isEmpty })
        #expect(outcome.warnings.map(\.line) == [3, 6])
        #expect(outcome.warnings.allSatisfy { $0.code == .blankRow && $0.sheet == "Sheet1" })
        #expect(outcome.warnings[0].message == "2 blank rows skipped (3-4)")
    }

    @Test("a header below blank rows, with styled empty cells after it; a cell past the header is extra-cell")
    func headerBelowBlankRows() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(3, ["name", "email"]).replacingOccurrences(of: "</row>", with: #"<c r="C3" s="0"/></row>"#)
            + textRow(4, ["Ann", "ann@x.edu", "extra"]))
        let outcome = try read(builder)
        #expect(outcome.header == ["name", "email"])
        #expect(outcome.warnings.map(\.message) == ["blank lines before the header are skipped"])
        let problem = try #require(outcome.rows.first?.problems.first)
        #expect(problem.code == .extraCell)
        #expect(problem.rendered.hasPrefix("book.xlsx:Sheet1!C4: error[extra-cell]"))
    }

    @Test("a formula saved without its value is an error on its cell")
    func uncalculatedFormula() throws {
        var builder = PackageBuilder()
        builder.addSheet("Fall 2026", rows: textRow(1, ["name", "year"])
            + #"<row r="2"><c r="A2" t="inlineStr"><is><t>Ann</t></is></c><c r="B2"><f>1+1</f><v></v></c></row>"#)
        let outcome = try read(builder)
        let problem = try #require(outcome.rows.first?.problems.first)
        #expect(problem.code == .uncalculatedFormula)
        #expect(problem.field == "year")
        #expect(problem.rendered.hasPrefix("book.xlsx:'Fall 2026'!B2: error[uncalculated-formula]: the formula =1+1 has no saved value"))
    }

    @Test("elements with a namespace prefix read like plain ones")
    func prefixedElements() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: "")
        var parts = builder.parts
        parts["xl/worksheets/sheet1.xml"] = """
            <x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>\
            <x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>code</x:t></x:is></x:c></x:row>\
            <x:row r="2"><x:c r="A2"><x:v>42</x:v></x:c></x:row></x:sheetData></x:worksheet>
            """
        let outcome = try withScratchDirectory { folder in
            try writeZip(parts, to: folder + "/book.xlsx")
            return try readWorkbook(folder + "/book.xlsx")
        }
        #expect(outcome.header == ["code"])
        #expect(outcome.rows.map(\.cells) == [["42"]])
    }

    @Test("the first visible sheet by default; --sheet by name, in any case; a missing sheet lists the sheets")
    func sheetChoice() throws {
        var builder = PackageBuilder()
        builder.addSheet("Notes", state: "hidden", rows: textRow(1, ["note"]))
        builder.addSheet("Students", rows: textRow(1, ["email"]) + textRow(2, ["s@x.edu"]))
        builder.addSheet("Leaders", rows: textRow(1, ["email"]) + textRow(2, ["l@x.edu"]))
        try withScratchDirectory { folder in
            let path = folder + "/book.xlsx"
            try builder.write(to: path)
            #expect(try readWorkbook(path).rows.map(\.cells) == [["s@x.edu"]])
            let leaders = try readWorkbook(path, sheet: "leaders")
            #expect(leaders.sheet == "Leaders" && leaders.rows.map(\.cells) == [["l@x.edu"]])
            // Named as the caller names the file (a URL for a download), not by the path read.
            #expect(throws: WorkbookError.noSuchSheet(path: "book.xlsx", sheet: "Staff", available: ["Notes", "Students", "Leaders"])) {
                try readWorkbook(path, sheet: "Staff")
            }
        }
    }

    @Test("an empty sheet is empty-file; blank and duplicate headers as in CSV")
    func headerProblems() throws {
        var empty = PackageBuilder()
        empty.addSheet("Sheet1", rows: #"<row r="1"><c r="A1" s="0"/></row>"#)
        let outcome = try read(empty)
        #expect(outcome.diagnostic?.code == .emptyFile)
        #expect(outcome.diagnostic?.message == "the sheet is empty: it has no header row")

        var duplicate = PackageBuilder()
        duplicate.addSheet("Sheet1", rows: textRow(1, ["First Name", "first_name"]))
        #expect(try read(duplicate).diagnostic?.rendered.hasPrefix("book.xlsx:Sheet1!B1: error[duplicate-header]") == true)
    }

    @Test("a sheet whose XML breaks off is malformed-workbook at the row, after the rows before it")
    func truncatedSheet() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: "")
        var parts = builder.parts
        parts["xl/worksheets/sheet1.xml"] = #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#
            + textRow(1, ["a"]) + textRow(2, ["x"]) + #"<row r="3"><c r="A3" t="inlineStr"><is><t>y"#
        let outcome = try withScratchDirectory { folder in
            try writeZip(parts, to: folder + "/book.xlsx")
            return try readWorkbook(folder + "/book.xlsx")
        }
        #expect(outcome.rows.map(\.line) == [2])
        let problem = try #require(outcome.diagnostic)
        #expect(problem.code == .malformedWorkbook && problem.code.isFatalToFile)
        #expect(problem.line == 3)
    }

    @Test("a sheet the workbook names but the package lacks is malformed-workbook, not a crash")
    func missingSheetPart() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["email"]))
        var parts = builder.parts
        parts["xl/worksheets/sheet1.xml"] = nil
        let problem = try #require(try read(parts).diagnostic)
        #expect(problem.code == .malformedWorkbook && problem.line == 1 && problem.sheet == "Sheet1")
        #expect(problem.message.contains("the package has no part xl/worksheets/sheet1.xml"), "\(problem.message)")
    }

    @Test("a sheet whose bytes do not match their CRC-32 is malformed-workbook; with the true one it reads")
    func damagedSheet() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["email"]) + textRow(2, ["a@x.edu"]))
        let (damaged, intact) = try withScratchDirectory { folder in
            try writeZip(builder.parts, to: folder + "/damaged.xlsx", damaged: ["xl/worksheets/sheet1.xml"])
            try writeZip(builder.parts, to: folder + "/intact.xlsx")
            return (try readWorkbook(folder + "/damaged.xlsx"), try readWorkbook(folder + "/intact.xlsx"))
        }
        let problem = try #require(damaged.diagnostic)
        #expect(problem.code == .malformedWorkbook && problem.code.isFatalToFile)
        #expect(problem.message.hasSuffix(": xl/worksheets/sheet1.xml is damaged (its checksum does not match)"), "\(problem.message)")
        #expect(intact.diagnostic == nil && intact.rows.map(\.cells) == [["a@x.edu"]])
    }

    @Test("a part read whole whose bytes do not match their CRC-32 makes the file no workbook")
    func damagedWholePart() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["email"]) + textRow(2, ["a@x.edu"]))
        try withScratchDirectory { folder in
            let path = folder + "/book.xlsx"
            try writeZip(builder.parts, to: path, damaged: ["xl/workbook.xml"])
            let reason = "its part xl/workbook.xml cannot be read (its checksum does not match)"
            #expect(throws: WorkbookError.notAWorkbook(path: "book.xlsx", reason: reason)) { try readWorkbook(path) }
        }
    }

    @Test("a ZIP64 entry that claims 2^64 - 1 bytes is read for what it holds, not trusted as a size")
    func hugeClaimedSize() throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["email"]) + textRow(2, ["a@x.edu"]))
        let outcome = try withScratchDirectory { folder in
            let claimed = ["xl/worksheets/sheet1.xml": String(UInt64.max)]
            try writeZip(builder.parts, to: folder + "/book.xlsx", claimedSizes: claimed)
            return try readWorkbook(folder + "/book.xlsx")
        }
        #expect(outcome.diagnostic == nil && outcome.rows.map(\.cells) == [["a@x.edu"]])
    }

    @Test("a cell pointing past the shared strings is malformed-workbook on its cell, after the rows before it")
    func sharedStringOutOfRange() throws {
        var builder = PackageBuilder()
        builder.sharedStrings = ["<si><t>email</t></si>", "<si><t>a@x.edu</t></si>"]
        builder.addSheet("Sheet1", rows: (1...3).map { row in
            #"<row r="\#(row)"><c r="A\#(row)" t="s"><v>\#(row - 1)</v></c></row>"#
        }.joined())
        let outcome = try read(builder)
        #expect(outcome.rows.map(\.cells) == [["a@x.edu"]])
        let problem = try #require(outcome.diagnostic)
        #expect(problem.rendered.hasPrefix("book.xlsx:Sheet1!A3: error[malformed-workbook]: "), "\(problem.rendered)")
        #expect(problem.message.contains("points at shared string 2, and the workbook has 2 (0 to 1)"),
                "\(problem.message)")
    }

    @Test("references and row numbers outside a sheet are malformed-workbook, never an overflow", arguments: [
        (#"<row r="99999999999999999999999"><c r="A2" t="inlineStr"><is><t>x</t></is></c></row>"#,
         "a row is numbered 99999999999999999999999"),
        (#"<row r="0"/>"#, "a row is numbered 0"),
        (#"<row r="1048576"/><row><c t="inlineStr"><is><t>x</t></is></c></row>"#, "a row is numbered 1048577"),
        (#"<row r="2"><c r="\#(String(repeating: "A", count: 30))2"><v>1</v></c></row>"#,
         #"reference "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA2" is outside"#),
        (#"<row r="2"><c r="XFE2"><v>1</v></c></row>"#, #""XFE2" is outside the columns a sheet can have (A to XFD)"#),
        (#"<row r="2"><c r="XFD2"><v>1</v></c><c><v>2</v></c></row>"#, "a cell after column XFD is outside"),
    ])
    func outOfSheetReferences(rows: String, message: String) throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["a"]) + rows)
        let problem = try #require(try read(builder).diagnostic)
        #expect(problem.code == .malformedWorkbook)
        #expect(problem.message.contains(message), "\(problem.message)")
    }

    @Test("a row numbered again or before the one above it, and a cell of a column given again, are malformed-workbook at that row or cell; the rows before are read", arguments: [
        (textRow(2, ["a@x.edu"]) + textRow(2, ["b@x.edu"]), "Sheet1!2:", "row 2 comes after row 2"),
        (textRow(3, ["a@x.edu"]) + textRow(2, ["b@x.edu"]), "Sheet1!2:", "row 2 comes after row 3"),
        // As XMLParser reads it: a comment makes the scanner leave the sheet to it.
        ("<!-- saved by hand -->" + textRow(2, ["a@x.edu"]) + textRow(2, ["b@x.edu"]), "Sheet1!2:", "row 2 comes after row 2"),
        (textRow(2, ["a@x.edu"]) + #"<row r="3"><c r="B3" t="inlineStr"><is><t>b@x.edu</t></is></c>"#
            + #"<c r="A3" t="inlineStr"><is><t>c@x.edu</t></is></c></row>"#, "Sheet1!A3:", "cell A3 comes after B3"),
        (textRow(2, ["a@x.edu"]) + #"<row r="3"><c r="A3" t="inlineStr"><is><t>b@x.edu</t></is></c>"#
            + #"<c r="A3" t="inlineStr"><is><t>c@x.edu</t></is></c></row>"#, "Sheet1!A3:", "cell A3 comes after A3"),
    ])
    func rowsAndCellsOutOfOrder(rows: String, location: String, message: String) throws {
        var builder = PackageBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["email", "name"]) + rows)
        let outcome = try read(builder)
        #expect(outcome.rows.first?.cells.first == "a@x.edu")
        let problem = try #require(outcome.diagnostic)
        #expect(problem.code == .malformedWorkbook)
        #expect(problem.rendered.hasPrefix("book.xlsx:" + location), "\(problem.rendered)")
        #expect(problem.message.contains(message), "\(problem.message)")
    }

    @Test("a date serial past 9999-12-31 or before 1900 reads as its digits, never an overflow")
    func outOfRangeDateSerials() throws {
        var builder = styledBuilder()
        builder.addSheet("Sheet1", rows: textRow(1, ["a", "b", "c", "d"])
            + #"<row r="2"><c r="A2" s="1"><v>1e300</v></c><c r="B2" s="3"><v>-1e300</v></c>"#
            + #"<c r="C2" s="1"><v>2958466</v></c><c r="D2" s="1"><v>2958465</v></c></row>"#)
        #expect(try read(builder).rows.first?.cells == ["1e+300", "-1e+300", "2958466", "9999-12-31"])
    }

    @Test("the 1904 date system's serial 0 is 1904-01-01, the same day as 1900's serial 1462")
    func serialZeroIn1904() throws {
        var builder = styledBuilder()
        builder.date1904 = true
        builder.addSheet("Sheet1", rows: textRow(1, ["day"]) + #"<row r="2"><c r="A2" s="1"><v>0</v></c></row>"#)
        #expect(try read(builder).rows.first?.cells == ["1904-01-01"])
        var from1900 = styledBuilder()
        from1900.addSheet("Sheet1", rows: textRow(1, ["day"]) + #"<row r="2"><c r="A2" s="1"><v>1462</v></c></row>"#)
        #expect(try read(from1900).rows.first?.cells == ["1904-01-01"])
    }

    @Test("a cell longer than the limit is field-too-long on its cell, whether inline, a value or a shared string")
    func cellLimit() throws {
        let limits = WorkbookLimits(maxCellBytes: 100)
        var builder = PackageBuilder()
        // Reading the shared strings stops at the first one too long: string 2 is never read.
        builder.sharedStrings = [String(repeating: "s", count: 100), String(repeating: "s", count: 101), "after"]
            .map { "<si><t>\($0)</t></si>" }
        builder.addSheet("Inline", rows: textRow(1, ["a", "b"]) + textRow(2, ["x", String(repeating: "é", count: 51)]))
        let digits = String(repeating: "1", count: 101)
        builder.addSheet("Value", rows: textRow(1, ["a"]) + #"<row r="2"><c r="A2"><v>\#(digits)</v></c></row>"#)
        builder.addSheet("Shared", rows: textRow(1, ["a", "b"])
            + #"<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row>"#)
        builder.addSheet("After", rows: textRow(1, ["a"]) + #"<row r="2"><c r="A2" t="s"><v>2</v></c></row>"#)
        let tooLong = "a cell is longer than 100 bytes"
        let cases = [("Inline", "B2", tooLong), ("Value", "A2", tooLong), ("Shared", "B2", tooLong),
                     ("After", "A2", "shared string 2 comes after string 1, which is longer than 100 bytes: "
                        + "crubatch read no further")]
        for (sheet, cell, message) in cases {
            let outcome = try read(builder, sheet: sheet, limits: limits)
            let problem = try #require(outcome.diagnostic, "\(sheet)")
            #expect(problem.rendered.hasPrefix("book.xlsx:\(sheet)!\(cell): error[field-too-long]: "),
                    "\(problem.rendered)")
            #expect(problem.message.contains(message), "\(problem.message)")
        }
    }

    @Test("a large sheet that compresses as real sheets do is read past maxPartBytes, up to its inflation ratio")
    func largeRealSheet() throws {
        var builder = PackageBuilder()
        builder.sharedStrings = ["<si><t>name</t></si>"]
        builder.addSheet("Sheet1", rows: textRow(1, ["a"]) + (2..<3000).map { textRow($0, ["row \($0) of a sheet"]) }.joined())
        let read3000 = try read(builder, limits: WorkbookLimits(maxPartBytes: 100_000))
        #expect(read3000.diagnostic == nil, "\(String(describing: read3000.diagnostic))")
        #expect(read3000.rows.count == 2998)
        // The same sheet allowed no more than its compressed size times 2: refused past 100,000 bytes.
        let refused = try read(builder, limits: WorkbookLimits(maxPartBytes: 100_000, maxInflationRatio: 2))
        #expect(refused.diagnostic?.message.contains("inflates to more than 100000 bytes") == true)
        #expect(WorkbookLimits().streamedPartLimit(compressedSize: 73_316_138) == 4 << 30)
        #expect(WorkbookLimits().streamedPartLimit(compressedSize: 1 << 20) == 512 << 20)
    }

    @Test("a part that inflates past its limit is refused, streamed or read whole; so are shared strings past theirs")
    func partLimits() throws {
        var builder = PackageBuilder()
        builder.sharedStrings = (0..<40).map { "<si><t>string number \($0)</t></si>" }
        builder.addSheet("Sheet1", rows: textRow(1, ["a"]) + (2..<3000).map { textRow($0, ["row \($0)"]) }.joined())
        // The rows inflated before the limit are read (the first 64 KiB chunk), then the sheet stops.
        let outcome = try read(builder, limits: WorkbookLimits(maxPartBytes: 100_000, maxInflationRatio: 1))
        let sheet = try #require(outcome.diagnostic)
        #expect(sheet.code == .malformedWorkbook && sheet.line > 2 && outcome.rows.count == sheet.line - 2)
        #expect(sheet.message.contains("xl/worksheets/sheet1.xml inflates to more than 100000 bytes"),
                "\(sheet.message)")

        do {
            _ = try read(builder, limits: WorkbookLimits(maxWholePartBytes: 200))
            Issue.record("a part read whole past its limit was read")
        } catch let error as WorkbookError {
            #expect(error.description.contains("xl/workbook.xml inflates to more than 200 bytes"), "\(error)")
        }
        do {
            _ = try read(builder, limits: WorkbookLimits(maxSharedStringBytes: 300))
            Issue.record("shared strings past their limit were read")
        } catch let error as WorkbookError {
            #expect(error.description.contains("its shared strings take more than 300 bytes of memory"), "\(error)")
        }
    }

    @Test("files that are not workbooks say what they are and what to do")
    func notWorkbooks() throws {
        try withScratchDirectory { folder in
            let random = folder + "/random.xlsx"
            try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
            #expect(throws: WorkbookError.notAWorkbook(path: random, reason: "it is not a ZIP package")) {
                try TableFile.open(path: random)
            }
            let empty = folder + "/empty.xlsx"
            try Data().write(to: URL(fileURLWithPath: empty))
            #expect(throws: WorkbookError.notAWorkbook(path: empty, reason: "it is empty")) { try TableFile.open(path: empty) }

            // An OLE container (old .xls, or a password-protected workbook), whatever its name.
            let old = folder + "/students.csv"
            try Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0]).write(to: URL(fileURLWithPath: old))
            #expect(throws: WorkbookError.legacyExcel(path: old)) { try TableFile.open(path: old) }

            let numbers = folder + "/students.numbers"
            try writeZip(["Index/Document.iwa": "x"], to: numbers)
            #expect(throws: WorkbookError.appleNumbers(path: numbers)) { try TableFile.open(path: numbers) }

            let otherZip = folder + "/photos.xlsx"
            try writeZip(["photo.txt": "x"], to: otherZip)
            #expect(throws: WorkbookError.notAWorkbook(path: otherZip, reason: "it has no workbook part (xl/workbook.xml)")) {
                try TableFile.open(path: otherZip)
            }

            let csv = folder + "/students.csv"
            try writeFile(csv, "email\na@x.edu\n")
            #expect(throws: WorkbookError.sheetOfCSV(path: csv)) { try TableFile.open(path: csv, sheet: "Sheet1") }
            let table = try TableFile.open(path: csv)
            #expect(table.sheet == nil && table.header == ["email"])
        }
        #expect(WorkbookError.legacyExcel(path: "a.xls").description.contains("save it as Excel Workbook (.xlsx)"))
        #expect(WorkbookError.appleNumbers(path: "a.numbers").description.contains("Export To > Excel (.xlsx)"))
    }

    @Test("sheet references in locations: column letters, and quoted sheet names")
    func locations() {
        #expect([1, 3, 26, 27, 52, 702, 703].map(Diagnostic.columnLetters) == ["A", "C", "Z", "AA", "AZ", "ZZ", "AAA"])
        let row = Diagnostic(file: "s.xlsx", sheet: "Sheet1", line: 14, code: .blankRow, message: "m")
        #expect(row.location == "s.xlsx:Sheet1!14")
        let cell = Diagnostic(file: "s.xlsx", sheet: "Bob's list", line: 2, column: 28, code: .extraCell, message: "m")
        #expect(cell.location == "s.xlsx:'Bob''s list'!AB2")
        #expect(Diagnostic(file: "s.csv", line: 2, column: 3, code: .extraCell, message: "m").location == "s.csv:2:3")
    }

    @Test("a large sheet streams in flat memory, and a reader dropped part-way stops its threads")
    func streamsInFlatMemory() throws {
        try withScratchDirectory { folder in
            let path = folder + "/big.xlsx"
            // openpyxl's write-only mode streams rows to disk: about 70 MB of sheet XML.
            _ = try Python.run(script: """
                import sys
                try:
                    import openpyxl
                except ImportError:
                    print("MISSING|python3-openpyxl"); sys.exit(3)
                book = openpyxl.Workbook(write_only=True)
                sheet = book.create_sheet("Students")
                sheet.append(["email", "first_name", "last_name", "phone", "notes"])
                for i in range(150000):
                    sheet.append([f"student{i}@calpoly.edu", "Ana", f"Flores {i}", 8055550000 + i % 10000,
                                  "likes long walks, quotes \\" and commas " * 3])
                book.save(sys.argv[1])
                """, arguments: [path])
            let before = peakResidentBytes()
            let table = try TableFile.open(path: path)
            var rows = 0
            var lastPhone = ""
            while let row = try table.next() {
                rows += 1
                lastPhone = row.cells[3]
            }
            #expect(rows == 150_000)
            #expect(lastPhone == "8055559999")
            let digest = try sha256sum(path)
            #expect(table.sha256Hex == digest)
            let growth = peakResidentBytes() - before
            #expect(growth < 40 << 20, "peak RSS grew by \(growth >> 20) MB reading a \(table.totalBytes >> 20) MB sheet")
            #expect(table.totalBytes > 60 << 20)

            let started = Date()
            do {
                let partial = try TableFile.open(path: path)
                for _ in 0..<10 { _ = try partial.next() }
            }
            #expect(Date().timeIntervalSince(started) < 5, "dropping a reader part-way must not wait for the rest of the sheet")
        }
    }

    private func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
