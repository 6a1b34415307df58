import CruBatchTestSupport
import Foundation
import Testing

/// The console in a real browser: scripts/console-walkthrough drives Debian's chromium through sign-in,
/// an upload with an error, its marked cell and rejects workbook, the fixed upload, Apply, the run and
/// Undo; then, as an admin, the messages with Requeue, a nightly file and a source's Fetch now. The
/// database and the downloaded files are checked here.
@Suite("staff console in a browser")
struct ConsoleBrowserTests {
    private let scratch = ScratchDirectory()

    @Test("sign in, upload with an error, see the marked cell, download the rejects, upload the fix, apply, see the run, undo; merge a pair and undo; as an admin requeue, download a nightly file, fetch a source")
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
        #expect(try ConsoleClient.addAccount(database, "admin@cru.org", password: "another long password", ["--role", "admin"]).status == 0)
        // For the admin's pages: a dead message, a nightly export, and a source that has one campus more now.
        try #require(try database.count("select count(*) from notifications") > 0)
        try database.connect().execute("""
            update notifications set status = 'dead', attempts = 5, last_error = '550 5.1.1 no such user'
            where id = (select min(id) from notifications)
            """)
        let nightly = try scratch.folder("nightly")
        #expect(try database.run(["nightly", "--out", nightly, "--quiet"]).status == 0)
        let served = try scratch.writeFile("campuses.csv",
                                           try String(contentsOfFile: TestEnvironment.fixture("central-coast/campuses.csv"), encoding: .utf8))
        // It lives past the whole walk-through: Fetch now is its last step.
        let server = try FaultyHTTPServer(files: ["/campuses.csv": served], tls: false, lifetime: 600)
        #expect(try database.run(["import", "campuses", server.url("/campuses.csv")]).status == 0)
        try (try String(contentsOfFile: served, encoding: .utf8)
             + "slo-high,San Luis Obispo High School,San Luis Obispo,CA,US,America/Los_Angeles,,,\n")
            .write(toFile: served, atomically: true, encoding: .utf8)
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
                                          "long enough password", bad, fixed, downloads, "--admin", "admin@cru.org", "another long password"],
                                         executable: "/usr/bin/python3")
        #expect(walk.status == 0, "\(walk.stdout)\n\(walk.stderr)")
        #expect(walk.stdout.split(separator: "\n").count == 22 && !walk.stdout.contains("FAIL"), "\(walk.stdout)")
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
        // The admin requeued the dead message, downloaded the nightly students.csv as written, and fetched the source.
        #expect(try database.count("select count(*) from notifications where status = 'dead'") == 0)
        let date = try #require(try FileManager.default.contentsOfDirectory(atPath: nightly).first { $0.hasPrefix("20") })
        #expect(FileManager.default.contentsEqual(atPath: downloads + "/students.csv", andPath: "\(nightly)/\(date)/data/students.csv"))
        #expect(try database.count("select count(*) from campuses where code = 'slo-high'") == 1)
        #expect(try database.connect().query("select os_user from import_runs where kind = 'campuses' order by id desc limit 1")
                .scalar(String.self) == "console:admin@cru.org")
    }
}
