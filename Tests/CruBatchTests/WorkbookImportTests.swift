import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// `import`, `validate` and `place` read .xlsx workbooks through the same mapping, checks and
/// diagnostics as CSV: a workbook and its CSV twin load the same rows.
@Suite("importing Excel workbooks")
struct WorkbookImportTests {
    /// `export KIND` of every kind, as text.
    private func exports(_ database: TestDatabase, _ kinds: [Kind] = Kind.allCases) throws -> [Kind: String] {
        var exports: [Kind: String] = [:]
        for kind in kinds {
            let result = try database.run(["export", kind.rawValue])
            try #require(result.status == 0, "\(kind): \(result.stderr)")
            exports[kind] = result.stdout
        }
        return exports
    }

    @Test("central-coast saved as .xlsx by LibreOffice (shared strings, numbers, dates, times) loads like the CSVs")
    func libreOfficeFixtures() throws {
        let database = try TestDatabase()
        let load = try database.run(["import", "--dir", TestEnvironment.fixture("xlsx/central-coast")])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stdout.contains("total          1004      1004"), "\(load.stdout)")
        let fromWorkbooks = try exports(database)
        let fromCSV = try exports(LoadedDatabase.get())
        for kind in Kind.allCases {
            #expect(fromWorkbooks[kind] == fromCSV[kind], "\(kind) differs between the .xlsx and the .csv load")
        }
    }

    /// Writes the same new students, group, membership, mission and event as CSV files into
    /// `folder/csv` and as workbooks written by openpyxl into `folder/xlsx`: phones and years as
    /// numbers, times, dates and date-times as Excel values, a workbook in the 1904 date system,
    /// formulas (with the values Excel would have saved beside them), a boolean and empty rows.
    private func writeTwins(into folder: String) throws {
        _ = try Python.run(script: #"""
            import csv, datetime, os, re, sys, zipfile
            try:
                import openpyxl
                from openpyxl.utils.datetime import CALENDAR_MAC_1904
            except ImportError:
                print("MISSING|python3-openpyxl"); sys.exit(3)
            folder = sys.argv[1]
            os.makedirs(folder + "/csv"); os.makedirs(folder + "/xlsx")

            def twin(kind, header, rows, text_rows, write_only=False, epoch=None, blank_after=None, cached=None):
                with open(f"{folder}/csv/{kind}.csv", "w", newline="", encoding="utf-8") as f:
                    writer = csv.writer(f)
                    writer.writerow(header)
                    writer.writerows(text_rows)
                book = openpyxl.Workbook(write_only=write_only)
                if epoch: book.epoch = epoch
                sheet = book.create_sheet("Sheet1") if write_only else book.active
                sheet.append(header)
                for index, row in enumerate(rows):
                    sheet.append(row)
                    if index == blank_after:
                        sheet.append([])
                        sheet.append([])
                path = f"{folder}/xlsx/{kind}.xlsx"
                book.save(path)
                if cached:
                    # openpyxl writes formulas without values; add the values Excel would save.
                    with zipfile.ZipFile(path) as package:
                        parts = {item.filename: package.read(item.filename) for item in package.infolist()}
                    xml = parts["xl/worksheets/sheet1.xml"].decode()
                    for ref, (kind_of_value, value) in cached.items():
                        xml, count = re.subn(rf'<c r="{ref}"[^>]*><f>([^<]*)</f><v\s*/?>(?:</v>)?</c>',
                                             lambda m: f'<c r="{ref}" t="{kind_of_value}"><f>{m[1]}</f><v>{value}</v></c>', xml)
                        assert count == 1, ref
                    parts["xl/worksheets/sheet1.xml"] = xml.encode()
                    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
                        for name, data in parts.items(): package.writestr(name, data)

            students = [("xl.ana@calpoly.edu", "Ana", "Xu", 8055550190, "female", 1),
                        ("xl.ben@calpoly.edu", "Ben", "Yates", 18055550191, "male", 2),
                        ("xl.cam@calpoly.edu", "Cam", "Zamora", "(805) 555-0192", "female", 3)]
            twin("students", ["email", "first_name", "last_name", "phone", "sex", "school_year", "campus", "ministries"],
                 [list(s) + ["calpoly", "cru-calpoly"] for s in students],
                 [[str(v) for v in s] + ["calpoly", "cru-calpoly"] for s in students], write_only=True, blank_after=0)
            twin("groups", ["code", "ministry", "name", "day", "time", "location", "audience", "sex", "capacity", "leaders"],
                 [["xl-tue", "cru-calpoly", "Workbook Group", '=PROPER("tuesday")', datetime.time(19, 30),
                   "Kennedy Library 202", "mixed", "mixed", "=10+2", "nnowak@calpoly.edu"]],
                 [["xl-tue", "cru-calpoly", "Workbook Group", "Tuesday", "19:30", "Kennedy Library 202", "mixed", "mixed",
                   "12", "nnowak@calpoly.edu"]], cached={"D2": ("str", "Tuesday"), "I2": ("n", "12")})
            twin("memberships", ["group", "email", "joined_at", "status"],
                 [["xl-tue", "xl.ana@calpoly.edu", datetime.datetime(2026, 9, 22, 16, 52, 26), "active"],
                  ["xl-tue", "xl.ben@calpoly.edu", datetime.datetime(2026, 9, 23, 8, 5), "pending"]],
                 [["xl-tue", "xl.ana@calpoly.edu", "2026-09-22T16:52:26", "active"],
                  ["xl-tue", "xl.ben@calpoly.edu", "2026-09-23T08:05:00", "pending"]], blank_after=0)
            twin("missions", ["code", "name", "starts_on", "ends_on", "location", "cost"],
                 [["xl-mission", "Workbook Mission", datetime.date(2027, 6, 6), datetime.date(2027, 7, 17), "Ocean City, MD", 3875.5]],
                 [["xl-mission", "Workbook Mission", "2027-06-06", "2027-07-17", "Ocean City, MD", "3875.50"]],
                 epoch=CALENDAR_MAC_1904)
            twin("events", ["code", "name", "starts_at", "ends_at", "ministries", "rideshare", "description"],
                 [["xl-night", "Workbook Night", datetime.datetime(2026, 10, 2, 19, 0), datetime.datetime(2026, 10, 2, 21, 30),
                   "cru-calpoly", True, "Bring a friend,\nand a snack"]],
                 [["xl-night", "Workbook Night", "2026-10-02T19:00:00", "2026-10-02T21:30:00", "cru-calpoly", "yes",
                   "Bring a friend,\nand a snack"]])
            """#, arguments: [folder])
    }

    @Test("workbooks written by openpyxl (numbers, dates, times, 1904, formulas, empty rows) load like their CSV twins")
    func openpyxlTwins() throws {
        try withScratchDirectory { folder in
            try writeTwins(into: folder)
            var loaded: [[Kind: String]] = []
            for format in ["csv", "xlsx"] {
                let database = try TestDatabase()
                #expect(try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")]).status == 0)
                let load = try database.run(["import", "--dir", "\(folder)/\(format)"])
                #expect(load.status == 0, "\(format): \(load.stderr)")
                if format == "xlsx" {
                    #expect(load.stderr.contains("students.xlsx:Sheet1!3: warning[blank-row]: 2 blank rows skipped (3-4)"),
                            "\(load.stderr)")
                }
                loaded.append(try exports(database, [.students, .groups, .memberships, .missions, .events]))
            }
            for (kind, csv) in loaded[0] {
                #expect(loaded[1][kind] == csv, "\(kind) differs between the .xlsx and the .csv load")
            }
            #expect(loaded[1][.students]?.contains("xl.ben@calpoly.edu,Ben,Yates,+18055550191,male,2") == true)
            #expect(loaded[1][.groups]?.contains("xl-tue,cru-calpoly,Workbook Group,Tuesday,19:30,Kennedy Library 202,mixed,mixed,12,") == true)
            #expect(loaded[1][.missions]?.contains("xl-mission,Workbook Mission,2027-06-06,2027-07-17") == true)
        }
    }

    @Test("a bad email in a workbook is reported by sheet and cell, in text, JSON and the rejects file")
    func diagnosticsNameTheCell() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            let path = folder + "/students.xlsx"
            _ = try Python.run(script: """
                import sys, openpyxl
                book = openpyxl.Workbook()
                sheet = book.active
                sheet.title = "Sheet1"
                sheet.append(["first_name", "last_name", "email"])
                for i in range(12):
                    sheet.append(["Ana", f"Flores{i}", f"xl.flores{i}@calpoly.edu"])
                sheet.append(["Bad", "Email", "bad.email.calpoly.edu"])
                book.save(sys.argv[1])
                """, arguments: [path])
            let result = try database.run(["validate", "students", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(path):Sheet1!C14: error[invalid-email]: email: not a valid email address"),
                    "\(result.stderr)")

            let json = try database.run(["validate", "students", path, "--format", "json"])
            let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
            let diagnostic = try #require((document["diagnostics"] as! [[String: Any]]).first)
            #expect(diagnostic["sheet"] as? String == "Sheet1" && diagnostic["line"] as? Int == 14 && diagnostic["column"] as? Int == 3)

            let rejects = folder + "/rejects.csv"
            let dry = try database.run(["import", "students", path, "--dry-run", "--on-error", "skip", "--rejects", rejects, "--wait"])
            #expect(dry.status == 1)
            let text = try String(contentsOfFile: rejects, encoding: .utf8)
            #expect(text == "first_name,last_name,email,error_line,error_code,error_message\r\n"
                + "Bad,Email,bad.email.calpoly.edu,14,invalid-email,email: not a valid email address\r\n")
        }
    }

    @Test("an old .xls, a random binary and a missing sheet are refused with what to do (exit 65, 65, 64)")
    func unreadableWorkbooks() throws {
        let database = try LoadedDatabase.get()
        let xls = TestEnvironment.fixture("xlsx/students.xls")
        let old = try database.run(["import", "students", xls, "--wait"])
        #expect(old.status == 65)
        #expect(old.stderr.contains("\(xls) is an old Excel workbook (.xls)"), "\(old.stderr)")
        #expect(old.stderr.contains("save it as Excel Workbook (.xlsx) or CSV UTF-8"))

        try withScratchDirectory { folder in
            let random = folder + "/students.xlsx"
            try Data((0..<2048).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
            let result = try database.run(["validate", "students", random, "--format", "json"])
            #expect(result.status == 65)
            #expect(result.stderr.contains("\(random) is not a valid Excel workbook (.xlsx): it is not a ZIP package"))
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
            #expect((document["error"] as? [String: Any])?["code"] as? String == "unreadable-input")
        }

        let workbook = TestEnvironment.fixture("xlsx/central-coast/students.xlsx")
        let noSheet = try database.run(["validate", "students", workbook, "--sheet", "Fall"])
        #expect(noSheet.status == 64)
        #expect(noSheet.stderr.contains("has no sheet \"Fall\"; its sheets are: \"students\""))
        #expect(try database.run(["validate", "students", workbook, "--sheet", "students"]).status == 0)
    }

    @Test("place reads a questionnaire workbook like its CSV")
    func placeFromWorkbook() throws {
        try withScratchDirectory { folder in
            let csv = TestEnvironment.fixture("get-involved/answers-small.csv")
            let path = folder + "/answers.xlsx"
            _ = try Python.run(script: """
                import csv, sys, openpyxl
                book = openpyxl.Workbook()
                sheet = book.active
                sheet.title = "Form Responses 1"
                for row in csv.reader(open(sys.argv[1], encoding="utf-8")):
                    sheet.append([int(cell) if cell.isdigit() else cell for cell in row])
                book.save(sys.argv[2])
                """, arguments: [csv, path])
            // Its own database: place takes the students' lock, which another test's import of the shared one may hold.
            let database = try TestDatabase(importing: "central-coast")
            let fromCSV = try database.run(["place", csv, "--dry-run", "--format", "csv"])
            let fromWorkbook = try database.run(["place", path, "--dry-run", "--format", "csv"])
            #expect(fromWorkbook.status == fromCSV.status)
            #expect(fromWorkbook.stdout == fromCSV.stdout)
            #expect(fromWorkbook.stdout.contains(",placed,"))
            #expect(fromWorkbook.stderr.contains("\(path):'Form Responses 1'!"), "\(fromWorkbook.stderr)")
        }
    }

    @Test("--dir refuses two files of one kind, and --sheet with --dir")
    func directoryRules() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("central-coast/campuses.csv"), toPath: folder + "/campuses.csv")
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("xlsx/central-coast/campuses.xlsx"),
                                             toPath: folder + "/Campuses.xlsx")
            let both = try database.run(["import", "--dir", folder, "--dry-run", "--wait"])
            #expect(both.status == 64)
            #expect(both.stderr.contains("Campuses.xlsx and campuses.csv: keep one file per kind"), "\(both.stderr)")
            try FileManager.default.removeItem(atPath: folder + "/campuses.csv")
            #expect(try database.run(["import", "--dir", folder, "--dry-run", "--wait"]).status == 0)
            #expect(try database.run(["import", "--dir", folder, "--sheet", "campuses"]).status == 64)
        }
    }
}
