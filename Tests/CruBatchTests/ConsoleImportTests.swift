import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The console's import: upload, the dry run's preview with the bad cells and the rejects workbook,
/// Apply bound to the file and the data it was previewed on, Undo; a campus account kept to its
/// campuses in the same checks the import runs.
@Suite("staff console import")
struct ConsoleImportTests {
    private let scratch = ScratchDirectory()

    private func database() throws -> TestDatabase {
        let database = try TestDatabase(importing: "central-coast")
        for (email, role) in [("admin@cru.org", ["--role", "admin"]), ("ana@cru.org", ["--role", "campus", "--campus", "calpoly"]),
                              ("vic@cru.org", ["--role", "viewer"])] {
            let added = try ConsoleClient.addAccount(database, email, password: "long enough password", role)
            #expect(added.status == 0, "\(added.stderr)")
        }
        return database
    }

    private func console(_ database: TestDatabase, _ arguments: [String] = []) throws -> ConsoleClient {
        try ConsoleClient(serving: database, arguments: ["--work-folder", try scratch.folder("work")] + arguments)
    }

    /// Uploads `text` as `name` for `kind` with the session's token from the import form.
    private func upload(_ browser: ConsoleClient, kind: String, name: String, _ text: String) throws -> ConsoleClient.Reply {
        let form = try browser.get("/import")
        let path = try scratch.writeFile(name, text)
        return try browser.upload("/import", fields: [("csrf", ConsoleClient.csrf(in: form.body) ?? ""), ("kind", kind)], file: path)
    }

    private func previewID(_ page: ConsoleClient.Reply) -> String? {
        guard let range = page.body.range(of: "/import/") else { return nil }
        let id = String(page.body[range.upperBound...].prefix { $0.isHexDigit })
        return id.count == 64 ? id : nil
    }

    @Test("upload with an error: the marked row and the rejects workbook; the fixed file applies, and Undo takes it back")
    func previewApplyUndo() throws {
        let database = try database()
        let browser = try console(database)
        try browser.signIn("admin@cru.org", "long enough password")
        let before = try database.count("select count(*) from people")
        let bad = try upload(browser, kind: "students", name: "new students.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,calpoly
            not-an-email,Oli,Other,calpoly

            """)
        #expect(bad.status == 422)
        #expect(bad.body.contains("<td>3</td><td>email</td><td>error[invalid-email]</td>"), "\(bad.body)")
        #expect(!bad.body.contains("<button>Apply</button>"))
        let badID = try #require(previewID(bad))
        let rejects = try scratch.folder() + "/rejects.xlsx"
        #expect(try browser.download("/import/\(badID)/rejects.xlsx", to: rejects).status == 200)
        #expect(try Data(contentsOf: URL(fileURLWithPath: rejects)).prefix(2) == Data("PK".utf8))
        let report = try browser.get("/import/\(badID)/report")
        #expect(report.status == 200 && report.header("content-security-policy")?.hasPrefix("sandbox") == true)
        #expect(try database.count("select count(*) from people") == before)

        let good = try upload(browser, kind: "students", name: "new students.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,calpoly
            oli.other@calpoly.edu,Oli,Other,calpoly

            """)
        #expect(good.status == 200 && good.body.contains("<button>Apply</button>"))
        let id = try #require(previewID(good))
        #expect(try database.count("select count(*) from people") == before)
        let applied = try browser.post("/import/\(id)/apply", [("csrf", try browser.csrf())])
        #expect(applied.status == 200 && applied.body.contains("Undo this run"), "\(applied.body)")
        #expect(try database.count("select count(*) from people") == before + 2)
        let run = try database.count("select max(id) from import_runs")
        #expect(try database.connect().query("select os_user from import_runs where id = \(run)").scalar(String.self) == "console:admin@cru.org")
        #expect(try browser.get("/runs").body.contains("console:admin@cru.org"))
        // Applying the same preview twice is refused.
        let again = try browser.post("/import/\(id)/apply", [("csrf", try browser.csrf())])
        #expect(again.status != 200 || again.body.contains("applied already"))
        #expect(try database.count("select count(*) from people") == before + 2)

        let undone = try browser.post("/runs/\(run)/undo", [("csrf", try browser.csrf())])
        #expect(undone.status == 200, "\(undone.body)")
        #expect(try database.count("select count(*) from people") == before)
    }

    @Test("Undo of a run a later run builds on is refused with the CLI's reasons, and writes nothing")
    func undoRefusedAsTheCLIRefuses() throws {
        let database = try database()
        let students = try scratch.writeFile("students.csv", "email,first_name,last_name,campus\nfresh@calpoly.edu,Fresh,Face,calpoly\n")
        let imported = try database.run(["import", "students", students, "--no-notify"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let run = try database.count("select max(id) from import_runs")
        let memberships = try scratch.writeFile("memberships.csv", "group,email\ncp-small-tue,fresh@calpoly.edu\n")
        #expect(try database.run(["import", "memberships", memberships, "--no-notify"]).status == 0)
        let browser = try console(database)
        try browser.signIn("admin@cru.org", "long enough password")
        let refused = try browser.post("/runs/\(run)/undo", [("csrf", try browser.csrf())])
        #expect(refused.status == 409, "\(refused.status)")
        #expect(refused.body.contains("Run \(run) not undone") && refused.body.contains("which the run added"), "\(refused.body)")
        #expect(try database.count("select count(*) from people where email = 'fresh@calpoly.edu'") == 1)
        #expect(try database.count("select count(*) from import_runs where id = \(run) and undone_at is null") == 1)
        #expect(!(try browser.get("/runs/\(run)").body.contains("undone")))
    }

    @Test("Apply after the data changed previews again and writes nothing")
    func applyIsBoundToTheData() throws {
        let database = try database()
        let browser = try console(database)
        try browser.signIn("admin@cru.org", "long enough password")
        let page = try upload(browser, kind: "students", name: "one.csv", "email,first_name,last_name,campus\nnia.new@calpoly.edu,Nia,New,calpoly\n")
        let id = try #require(previewID(page))
        let other = try scratch.writeFile("other.csv", "email,first_name,last_name,campus\nzed.z@calpoly.edu,Zed,Zee,calpoly\n")
        #expect(try database.run(["import", "students", other]).status == 0)
        let before = try database.count("select count(*) from people")
        let applied = try browser.post("/import/\(id)/apply", [("csrf", try browser.csrf())])
        #expect(applied.body.contains("changed since the preview") && applied.body.contains("<button>Apply</button>"))
        #expect(try database.count("select count(*) from people") == before)
    }

    @Test("a campus account: a row of another campus is that row's forbidden-campus error; others' previews and runs are not found")
    func campusScoping() throws {
        let database = try database()
        let admin = try console(database)
        try admin.signIn("admin@cru.org", "long enough password")
        let adminPreview = try #require(previewID(try upload(admin, kind: "students", name: "a.csv",
                                                             "email,first_name,last_name,campus\nadm.in@cuesta.edu,Adm,In,cuesta\n")))
        let existing = try database.connect().query("""
            select p.email from people p join campuses c on c.id = p.campus_id where c.code = 'cuesta' and not p.is_leader limit 1
            """).scalar(String.self)

        let ana = try ConsoleClient(sameServerAs: admin)
        try ana.signIn("ana@cru.org", "long enough password")
        let page = try upload(ana, kind: "students", name: "mine.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,calpoly
            cue.new@cuesta.edu,Cue,New,cuesta
            \(existing),Moved,Over,calpoly

            """)
        #expect(page.status == 422)
        #expect(page.body.contains("<td>3</td><td>campus</td><td>error[forbidden-campus]</td><td>campus &quot;cuesta&quot; is not one of your campuses"), "\(page.body)")
        #expect(page.body.contains("<td>4</td><td>email</td><td>error[forbidden-campus]</td><td>this student belongs to campus &quot;cuesta&quot;"), "\(page.body)")
        #expect(!page.body.contains("<td>2</td>"))
        // Not a kind without a campus, nor another account's preview, nor another's run.
        let campuses = try upload(ana, kind: "campuses", name: "c.csv", "code,name\nx,X\n")
        #expect(campuses.status == 400 && campuses.body.contains("an admin loads campuses"), "\(campuses.body)")
        #expect(try ana.get("/import/\(adminPreview)/report").status == 404)
        #expect(try ana.post("/import/\(adminPreview)/apply", [("csrf", try ana.csrf())]).status == 404)
        let adminRun = try database.count("select min(id) from import_runs")
        #expect(try ana.post("/runs/\(adminRun)/undo", [("csrf", try ana.csrf())]).status == 404)
        #expect(try database.count("select count(*) from import_runs where undone_at is not null") == 0)
        // A viewer reads only.
        let vic = try ConsoleClient(sameServerAs: admin)
        try vic.signIn("vic@cru.org", "long enough password")
        #expect(try vic.get("/import").body.contains("reads only"))
        #expect(try vic.post("/runs/\(adminRun)/undo", [("csrf", try vic.csrf())]).status == 403)
    }

    @Test("a campus account loads groups, teams and memberships of its campuses' ministries; another campus's are that row's error")
    func campusScopingThroughMinistries() throws {
        let database = try database()
        let ana = try console(database)
        try ana.signIn("ana@cru.org", "long enough password")
        // Line 2 is a calpoly group, line 3 a group of Cuesta's ministry, line 4 moves a Cuesta group to calpoly.
        let groups = try upload(ana, kind: "groups", name: "groups.csv", """
            code,ministry,name,leaders
            cp-new-thu,cru-calpoly,New Thursday,ktanaka@calpoly.edu
            cu-new-thu,cru-cuesta,Cuesta Thursday,ktanaka@calpoly.edu
            cu-fr-men-tue,cru-calpoly,Moved Over,ktanaka@calpoly.edu

            """)
        #expect(groups.status == 422, "\(groups.status)")
        #expect(groups.body.contains("<td>3</td><td>ministry</td><td>error[forbidden-campus]</td><td>ministry &quot;cru-cuesta&quot; belongs to campus &quot;cuesta&quot;"),
                "\(groups.body)")
        #expect(groups.body.contains("<td>4</td><td>code</td><td>error[forbidden-campus]</td><td>this group belongs to campus &quot;cuesta&quot;"))
        #expect(!groups.body.contains("<td>2</td>"))

        // As staff type them: a campus and a ministry by name, codes in capitals and with spaces around.
        let typed = try upload(ana, kind: "students", name: "typed.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,Cal Poly San Luis Obispo
            oli.new@calpoly.edu,Oli,New, CALPOLY

            """)
        #expect(previewID(typed) != nil && !typed.body.contains("forbidden-campus"), "\(typed.body)")
        let named = try upload(ana, kind: "groups", name: "named.csv", "code,ministry,name,leaders\ncp-named,Cru Cal Poly,Named,ktanaka@calpoly.edu\n")
        #expect(previewID(named) != nil && !named.body.contains("forbidden-campus"), "\(named.body)")
        let mine = try upload(ana, kind: "groups", name: "mine.csv", "code,ministry,name,leaders\ncp-new-thu,cru-calpoly,New Thursday,ktanaka@calpoly.edu\n")
        let applied = try ana.post("/import/\(try #require(previewID(mine)))/apply", [("csrf", try ana.csrf())])
        #expect(applied.status == 200 && applied.body.contains("Undo this run"), "\(applied.status) \(applied.body)")
        #expect(try database.count("select count(*) from community_groups where code = 'cp-new-thu'") == 1)

        // A membership's campus is its group's: a Cuesta group's member is not a calpoly account's to change.
        let memberships = try upload(ana, kind: "memberships", name: "memberships.csv", """
            group,email
            cp-new-thu,kkealoha@calpoly.edu
            cu-fr-men-tue,kkealoha@calpoly.edu

            """)
        #expect(memberships.status == 422)
        #expect(memberships.body.contains("<td>3</td><td>group</td><td>error[forbidden-campus]</td><td>group &quot;cu-fr-men-tue&quot; belongs to campus &quot;cuesta&quot;"),
                "\(memberships.body)")
        #expect(!memberships.body.contains("<td>2</td>"))
        // A team's campus is its ministry's too.
        let teams = try upload(ana, kind: "teams", name: "teams.csv", "code,ministry,name\ncu-prayer,cru-cuesta,Prayer\ncp-prayer,cru-calpoly,Prayer\n")
        #expect(teams.status == 422)
        #expect(teams.body.contains("<td>2</td><td>ministry</td><td>error[forbidden-campus]</td><td>ministry &quot;cru-cuesta&quot; belongs to campus &quot;cuesta&quot;"),
                "\(teams.body)")
        #expect(!teams.body.contains("<td>3</td>"))
        #expect(try database.count("select count(*) from community_groups g join ministries m on m.id = g.ministry_id where g.code = 'cu-fr-men-tue' and m.code = 'cru-cuesta'") == 1)
    }

    @Test("an upload without its token, over the limit, or a path in place of an id is refused and leaves nothing")
    func refusedUploads() throws {
        let database = try database()
        let work = try scratch.folder("work")
        let browser = try console(database, ["--upload-limit", "1"])
        try browser.signIn("admin@cru.org", "long enough password")
        let path = try scratch.writeFile("s.csv", "email,first_name,last_name\nnia.new@calpoly.edu,Nia,New\n")
        let noToken = try browser.upload("/import", fields: [("kind", "students")], file: path)
        #expect(noToken.status == 403)
        let big = try scratch.writeFile("big.csv", "email,first_name,last_name\n" + String(repeating: "x@calpoly.edu,A,B\n", count: 70_000))
        let tooLarge = try browser.upload("/import", fields: [("csrf", try browser.csrf()), ("kind", "students")], file: big)
        #expect(tooLarge.status == 413)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).isEmpty)
        #expect(try database.count("select count(*) from staff_previews") == 0)
        for probe in ["/import/..%2F..%2Fetc%2Fpasswd/report", "/import/../../etc/passwd/rejects.xlsx", "/import/%2e%2e/report"] {
            #expect(try browser.get(probe).status == 404, "\(probe)")
        }
    }

    @Test("a ZIP bomb workbook is refused at its cell, as validate refuses it, and an unreadable file says why")
    func hostileUploads() throws {
        let database = try database()
        let browser = try console(database)
        try browser.signIn("admin@cru.org", "long enough password")
        let bomb = try scratch.folder() + "/students.xlsx"
        try HostileInputTests.writeBomb(to: bomb, cell: 8 << 20, inSharedStrings: true)
        let before = try database.count("select count(*) from people")
        let form = try browser.get("/import")
        let refused = try browser.upload("/import", fields: [("csrf", ConsoleClient.csrf(in: form.body) ?? ""), ("kind", "students")],
                                         file: bomb)
        #expect(refused.status == 422, "\(refused.status)")
        #expect(refused.body.contains("error[field-too-long]"), "\(refused.body)")
        let garbage = try upload(browser, kind: "students", name: "broken.xlsx", "this is not a workbook")
        #expect(garbage.status == 422)
        #expect(garbage.body.contains("broken.xlsx is not a valid Excel workbook (.xlsx): it is not a ZIP package"), "\(garbage.body)")
        #expect(try database.count("select count(*) from people") == before)
    }

    @Test("a link instead of a file: fetched once, previewed, and Apply loads that copy even after the link's content changed")
    func linkImport() throws {
        let database = try database()
        let served = try scratch.writeFile("served.csv", "email,first_name,last_name,campus\nnia.new@calpoly.edu,Nia,New,calpoly\n")
        let server = try FaultyHTTPServer(files: ["/students.csv": served], tls: false)
        let browser = try console(database)
        try browser.signIn("admin@cru.org", "long enough password")
        let form = try browser.get("/import")
        let empty = try scratch.writeFile("empty.csv", "")
        let page = try browser.upload("/import", fields: [("csrf", ConsoleClient.csrf(in: form.body) ?? ""), ("kind", "students"),
                                                          ("link", server.url("/students.csv"))], file: empty)
        #expect(page.status == 200 && page.body.contains("would insert nia.new@calpoly.edu"), "\(page.body)")
        let id = try #require(previewID(page))
        // What the link serves now is not what was previewed: Apply loads the copy that was.
        try "email,first_name,last_name,campus\nzed.other@calpoly.edu,Zed,Other,calpoly\n".write(toFile: served, atomically: true, encoding: .utf8)
        let applied = try browser.post("/import/\(id)/apply", [("csrf", try browser.csrf())])
        #expect(applied.status == 200, "\(applied.body)")
        #expect(try database.count("select count(*) from people where email = 'nia.new@calpoly.edu'") == 1)
        #expect(try database.count("select count(*) from people where email = 'zed.other@calpoly.edu'") == 0)
        #expect(server.requests.count == 1)
        let refused = try browser.upload("/import", fields: [("csrf", try browser.csrf()), ("kind", "students"),
                                                             ("link", server.url("/missing.csv"))], file: empty)
        #expect(refused.status == 422 && refused.body.contains("404"), "\(refused.body)")
        let both = try browser.upload("/import", fields: [("csrf", try browser.csrf()), ("kind", "students"),
                                                          ("link", server.url("/students.csv"))], file: served)
        #expect(both.status == 400 && both.body.contains("a file or a link, not both"))
        #expect(server.requests.count == 2)
    }
}
