import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// Rosters for people: CSV with a leader block per group, and workbooks with a sheet per group,
/// checked by reading them back with openpyxl.
@Suite("rosters for people")
struct PeopleRosterTests {
    /// central-coast plus two members of cp-small-tue (which has none): one whose name would be a
    /// formula, one with a UK phone.
    private func databaseWithSmallGroupMembers() throws -> TestDatabase {
        let database = try TestDatabase()
        try #require(try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")]).status == 0)
        try withScratchDirectory { folder in
            try writeFile(folder + "/students.csv", """
                email,first_name,last_name,phone,school_year
                evil@calpoly.edu,"=HYPERLINK(""http://x"")",@SUM(A1),(805) 555-0199 x12,2
                nigel@calpoly.edu,Nigel,Ashworth,+44 20 7946 0958,5

                """)
            try writeFile(folder + "/memberships.csv", """
                group,email,joined_at
                cp-small-tue,evil@calpoly.edu,2026-11-22T05:59:56Z
                cp-small-tue,nigel@calpoly.edu,2026-09-01T19:00:00-07:00

                """)
            let load = try database.run(["import", "--dir", folder])
            try #require(load.status == 0, "\(load.stderr)")
        }
        return database
    }

    @Test("CSV for people: BOM, a leader block, human headers, national phones, years as words, dates in the campus's zone")
    func peopleCSV() throws {
        let database = try databaseWithSmallGroupMembers()
        let result = try database.run(["export", "roster", "--group", "cp-small-tue"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\u{FEFF}" + [
            "Group,Tuesday Small Group (cp-small-tue)",
            "Ministry,Cru Cal Poly",
            "Meets,\"Tuesdays at 19:00, Dexter Lawn (Library if it rains)\"",
            "Leader,Tomás Pérez,tomas.perez@cru.org,(805) 555-0156",
            "Leader,Abigail D'Angelo,abigail.dangelo@cru.org,(805) 555-0173",
            "First name,Last name,Email,Phone,Year,Events this term,Joined",
            // Only cells that could be formulas get the apostrophe; a UK number keeps its +.
            "\"'=HYPERLINK(\"\"http://x\"\")\",'@SUM(A1),evil@calpoly.edu,(805) 555-0199 ext. 12,Sophomore,,2026-11-21",
            "Nigel,Ashworth,nigel@calpoly.edu,'+442079460958,Fifth year / graduate,,2026-09-01",
            "", "",
        ].joined(separator: "\r\n"))
    }

    @Test("--for machines keeps the flat format, one row per member with the group and leaders repeated")
    func machinesCSV() throws {
        let database = try databaseWithSmallGroupMembers()
        let result = try database.run(["export", "roster", "--group", "cp-small-tue", "--for", "machines"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\r\n")
        #expect(lines[0] == "group_code,group_name,day,time,location,leader_names,leader_emails,leader_phones,first_name,last_name,email,phone,school_year,status,joined_at,events_this_term")
        #expect(lines[1].hasPrefix("cp-small-tue,Tuesday Small Group,Tuesday,19:00,Dexter Lawn (Library if it rains),Tomás Pérez; Abigail D'Angelo,"))
        #expect(lines[2].hasSuffix(",Nigel,Ashworth,nigel@calpoly.edu,'+442079460958,5,active,2026-09-02T02:00:00Z,"))
        #expect(lines.count == 4)

        let misuse = try database.run(["export", "roster", "--format", "xlsx", "--for", "machines", "--out", "/tmp/x.xlsx"])
        #expect(misuse.status == 64)
        #expect(misuse.stderr.contains("--for applies to CSV rosters"))
    }

    /// What openpyxl sees in a roster workbook, one line per fact.
    private func describeWorkbook(_ path: String, sheet: String) throws -> [String] {
        try Python.run(script: """
            import sys, openpyxl
            book = openpyxl.load_workbook(sys.argv[1])
            print("sheets", len(book.sheetnames), "valid", all(len(n) <= 31 and not set(n) & set("[]:*?/\\\\") for n in book.sheetnames),
                  "unique", len({n.lower() for n in book.sheetnames}) == len(book.sheetnames))
            sheet = book[sys.argv[2]]
            for row in sheet.iter_rows():
                cells = [(c.data_type, type(c.value).__name__, str(c.value)) for c in row if c.value is not None]
                if cells: print(" | ".join(f"{t}:{k}:{v}" for t, k, v in cells))
            print("freeze", sheet.freeze_panes, "filter", sheet.auto_filter.ref, "orientation", sheet.page_setup.orientation,
                  "titles", sheet.print_title_rows)
            """, arguments: [path, sheet]).split(separator: "\n").map(String.init)
    }

    @Test("a roster workbook: a sheet per group, title block, header row, phones as text, joined dates as dates")
    func workbook() throws {
        let database = try databaseWithSmallGroupMembers()
        try withScratchDirectory { folder in
            let path = folder + "/calpoly.xlsx"
            let result = try database.run(["export", "roster", "--campus", "calpoly", "--format", "xlsx", "--out", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["calpoly.xlsx"])
            let groups = try database.count("""
                select count(*) from community_groups g join ministries mi on mi.id = g.ministry_id
                join campuses c on c.id = mi.campus_id where c.code = 'calpoly'
                """)
            let lines = try describeWorkbook(path, sheet: "Tuesday Small Group")
            #expect(lines == [
                "sheets \(groups) valid True unique True",
                "s:str:Group | s:str:Tuesday Small Group (cp-small-tue)",
                "s:str:Ministry | s:str:Cru Cal Poly",
                "s:str:Meets | s:str:Tuesdays at 19:00, Dexter Lawn (Library if it rains)",
                "s:str:Leader | s:str:Tomás Pérez | s:str:tomas.perez@cru.org | s:str:(805) 555-0156",
                "s:str:Leader | s:str:Abigail D'Angelo | s:str:abigail.dangelo@cru.org | s:str:(805) 555-0173",
                "s:str:First name | s:str:Last name | s:str:Email | s:str:Phone | s:str:Year | s:str:Events this term | s:str:Joined",
                // Typed text: no formula, no apostrophe.
                #"s:str:=HYPERLINK("http://x") | s:str:@SUM(A1) | s:str:evil@calpoly.edu | s:str:(805) 555-0199 ext. 12 | s:str:Sophomore | d:datetime:2026-11-21 00:00:00"#,
                "s:str:Nigel | s:str:Ashworth | s:str:nigel@calpoly.edu | s:str:+442079460958 | s:str:Fifth year / graduate | d:datetime:2026-09-01 00:00:00",
                "freeze A8 filter A7:G9 orientation landscape titles $7:$7",
            ])
        }
    }

    @Test("an .xlsx roster goes to standard output when it is not a terminal")
    func workbookToStandardOutput() throws {
        let database = try LoadedDatabase.get()
        let result = try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--format", "xlsx"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.starts(with: [0x50, 0x4B, 0x03, 0x04]))
    }

    @Test("nightly --rosters xlsx writes all.xlsx and a workbook per group, in the manifest, mode 0600")
    func nightlyWorkbooks() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { out in
            let result = try database.run(["nightly", "--out", out, "--rosters", "xlsx", "--date", "2026-11-22"])
            #expect(result.status == 0, "\(result.stderr)")
            let rosters = try FileManager.default.contentsOfDirectory(atPath: out + "/latest/rosters").sorted()
            let groups = try database.count("select count(*) from community_groups")
            #expect(rosters.count == groups + 1 && rosters.allSatisfy { $0.hasSuffix(".xlsx") } && rosters.contains("all.xlsx"))
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/latest/manifest.json"))) as! [String: Any]
            let all = try #require((manifest["files"] as! [[String: Any]]).first { $0["file"] as? String == "rosters/all.xlsx" })
            #expect(all["rows"] as? Int == (try database.count("select count(*) from memberships")))
            #expect(all["sha256"] as? String == (try sha256sum(out + "/latest/rosters/all.xlsx")))
            #expect(try FileManager.default.attributesOfItem(atPath: out + "/latest/rosters/all.xlsx")[.posixPermissions] as? Int == 0o600)
            let lines = try describeWorkbook(out + "/latest/rosters/all.xlsx", sheet: "Freshmen Men (Monday)")
            #expect(lines.first == "sheets \(groups) valid True unique True")
        }
    }
}
