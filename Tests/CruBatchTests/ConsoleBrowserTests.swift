import CruBatchTestSupport
import Foundation
import Testing

/// The console in a real browser: scripts/console-walkthrough drives Debian's chromium through sign-in,
/// an upload with an error, its marked cell and rejects workbook, the fixed upload, Apply, the run and
/// Undo; the database and the downloaded file are checked here.
@Suite("staff console in a browser")
struct ConsoleBrowserTests {
    private let scratch = ScratchDirectory()

    @Test("sign in, upload with an error, see the marked cell, download the rejects, upload the fix, apply, see the run, undo; merge a pair and undo")
    func walkThrough() throws {
        let database = try TestDatabase(importing: "central-coast")
        // A second record of a calpoly student: the pair People proposes.
        let student = try database.connect().query("""
            select p.first_name, p.last_name, p.phone from people p join campuses c on c.id = p.campus_id
            where c.code = 'calpoly' and not p.is_leader and p.phone is not null order by p.email limit 1
            """).texts[0].map { $0 ?? "" }
        let copy = try scratch.writeFile("copy.csv", "email,first_name,last_name,phone,campus\nsecond.record@example.org,\(student[0]),\(student[1]),\(student[2]),calpoly\n")
        #expect(try database.run(["import", "students", copy, "--no-notify"]).status == 0)
        let added = try ConsoleClient.addAccount(database, "ana@cru.org", password: "long enough password",
                                                 ["--role", "campus", "--campus", "calpoly"])
        #expect(added.status == 0, "\(added.stderr)")
        let console = try ConsoleClient(serving: database, arguments: ["--work-folder", try scratch.folder("work")])
        let bad = try scratch.writeFile("new students.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,calpoly
            not-an-email,Oli,Other,calpoly

            """)
        let fixed = try scratch.writeFile("new students fixed.csv", """
            email,first_name,last_name,campus
            nia.new@calpoly.edu,Nia,New,calpoly
            oli.other@calpoly.edu,Oli,Other,calpoly

            """)
        let downloads = try scratch.folder("downloads")
        let before = try database.count("select count(*) from people")
        let walk = try CommandResult.run([TestEnvironment.root.appendingPathComponent("scripts/console-walkthrough").path, console.base, "ana@cru.org",
                                          "long enough password", bad, fixed, downloads], executable: "/usr/bin/python3")
        #expect(walk.status == 0, "\(walk.stdout)\n\(walk.stderr)")
        #expect(walk.stdout.split(separator: "\n").count == 14 && !walk.stdout.contains("FAIL"), "\(walk.stdout)")
        let workbook = try Data(contentsOf: URL(fileURLWithPath: downloads + "/rejects.xlsx"))
        #expect(workbook.prefix(2) == Data("PK".utf8))
        // The run was applied by the campus account, then undone: the people are as before.
        let runs = try database.connect().query("""
            select os_user, undone_at is not null from import_runs where file_name = 'new students fixed.csv' and not dry_run
            """).texts
        #expect(runs == [["console:ana@cru.org", "t"]])
        #expect(try database.count("select count(*) from people") == before)
        #expect(try database.count("select count(*) from people where email = 'nia.new@calpoly.edu'") == 0)
        // The merge was made and undone by the campus account: both records are back.
        #expect(try database.count("select count(*) from import_runs where kind = 'people-merge' and os_user = 'console:ana@cru.org' and undone_at is not null") == 1)
        #expect(try database.count("select count(*) from people where email = 'second.record@example.org'") == 1)
    }
}
