import CruBatchTestSupport
import Foundation
import Testing

/// `--rejects FILE.xlsx`: the rows back as a workbook with the bad cells marked, which staff fix and
/// import again. openpyxl, an Excel reader independent of crubatch, is the oracle.
@Suite("rejects as a workbook")
struct RejectsWorkbookTests {
    private let scratch = ScratchDirectory()

    static let groups = """
        code,ministry,name,day,time,location,audience,sex,capacity,leaders,description
        cp-new-a,cru-calpoly,New A,Tuesday,19:00,Library,mixed,mixed,10,ktanaka@calpoly.edu,Fine row
        cp-new-b,cru-calpoy,New B,Funday,19:00,Library,mixed,mixed,10,ktanaka@calpoly.edu,
        cp-new-c,cru-calpoly,New C,Wednesday,19:00,Library,mixed,mixed,-3,ktanaka@calpoly.edu,

        """

    @Test("the bad cells have a light red fill and a comment naming the error; the header is bold and frozen; fixed with openpyxl, the workbook loads every row")
    func fixAndImportAgain() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try scratch.writeFile("groups.csv", Self.groups)
        let rejects = try scratch.folder() + "/rejects.xlsx"
        let groupsBefore = try database.count("select count(*) from community_groups")

        let load = try database.run(["import", "groups", file, "--rejects", rejects])
        #expect(load.status == 1, "\(load.stderr)")
        #expect(load.stdout.contains("rejects: \(rejects) holds every row (3), 2 of them rejected"), "\(load.stdout)")
        #expect(try database.count("select count(*) from community_groups") == groupsBefore)
        let mode = try FileManager.default.attributesOfItem(atPath: rejects)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let marked = try Python.run(script: """
            import sys, openpyxl
            sheet = openpyxl.load_workbook(sys.argv[1]).active
            print("header", [c.value for c in sheet[1]], all(c.font.b for c in sheet[1]), "freeze", sheet.freeze_panes)
            for row in sheet.iter_rows(min_row=2):
                for cell in row:
                    if cell.fill.fill_type or cell.comment:
                        print(cell.coordinate, cell.value, cell.fill.fill_type, cell.fill.fgColor.rgb,
                              cell.comment.text.split(":")[0] if cell.comment else None)
            print("errors", [sheet.cell(row=r, column=12).value is not None for r in range(2, 5)])
            """, arguments: [rejects])
        #expect(marked.split(separator: "\n").map(String.init) == [
            "header ['code', 'ministry', 'name', 'day', 'time', 'location', 'audience', 'sex', 'capacity', 'leaders', 'description', 'errors'] True freeze A2",
            "B3 cru-calpoy solid FFFFC7CE unknown-reference",
            "D3 Funday solid FFFFC7CE invalid-choice",
            "I4 -3 solid FFFFC7CE out-of-range",
            "errors [False, True, True]",
        ])
        let comment = try Python.run(script: """
            import sys, openpyxl
            print(openpyxl.load_workbook(sys.argv[1]).active["D3"].comment.text)
            """, arguments: [rejects])
        #expect(comment.contains("is not one of Monday") && comment.contains("hint: did you mean \"Sunday\"?"), "\(comment)")

        // Staff fix the marked cells and import the same workbook (saved by another program) again.
        _ = try Python.run(script: """
            import sys, openpyxl
            book = openpyxl.load_workbook(sys.argv[1])
            sheet = book.active
            sheet["B3"] = "cru-calpoly"
            sheet["D3"] = "Sunday"
            sheet["I4"] = "12"
            book.save(sys.argv[1])
            """, arguments: [rejects])
        let again = try database.run(["import", "groups", rejects])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.isEmpty, "the errors column is ignored: \(again.stderr)")
        #expect(try database.count("select count(*) from community_groups") == groupsBefore + 3)
        #expect(try database.count("""
            select count(*) from community_groups where code = 'cp-new-c' and capacity = 12
            """) == 1)
    }

    @Test("--rejects FILE.xlsx holds one file's rows: with --dir it is a usage error")
    func oneFileOnly() throws {
        let result = try CommandResult.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--rejects", "r.xlsx"])
        #expect(result.status == 64 && result.stderr.contains("--rejects FILE.xlsx holds one file's rows"), "\(result.stderr)")
    }
}
