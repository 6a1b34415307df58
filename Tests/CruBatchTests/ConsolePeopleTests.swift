import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The console's people page: pairs to review, Merge (undone from its run), Not the same person
/// (remembered by `people duplicates` too), and a campus account kept to its campuses' people.
@Suite("staff console people")
struct ConsolePeopleTests {
    private let scratch = ScratchDirectory()

    /// central-coast, with a second record of a calpoly and of a cuesta student (same name and phone,
    /// another email), and an admin and a calpoly account.
    private func database() throws -> (TestDatabase, calpoly: String, cuesta: String) {
        let database = try TestDatabase(importing: "central-coast")
        var copies = "email,first_name,last_name,phone,campus\n"
        var originals: [String] = []
        for campus in ["calpoly", "cuesta"] {
            let row = try database.connect().query("""
                select p.email, p.first_name, p.last_name, p.phone from people p join campuses c on c.id = p.campus_id
                where c.code = \(campus) and not p.is_leader and p.phone is not null order by p.email limit 1
                """).texts[0].map { $0 ?? "" }
            originals.append(row[0])
            copies += "second.\(campus)@example.org,\(row[1]),\(row[2]),\(row[3]),\(campus)\n"
        }
        #expect(try database.run(["import", "students", try scratch.writeFile("copies.csv", copies), "--no-notify"]).status == 0)
        for (email, role) in [("admin@cru.org", ["--role", "admin"]), ("ana@cru.org", ["--role", "campus", "--campus", "calpoly"])] {
            #expect(try ConsoleClient.addAccount(database, email, password: "long enough password", role).status == 0)
        }
        return (database, originals[0], originals[1])
    }

    @Test("merge a pair and undo it; a pair said to be two people is not proposed again, in the console or by the command")
    func mergeAndDistinct() throws {
        let (database, calpoly, cuesta) = try database()
        let browser = try ConsoleClient(serving: database)
        try browser.signIn("admin@cru.org", "long enough password")
        let page = try browser.get("/people")
        #expect(page.status == 200 && page.body.contains("second.calpoly@example.org") && page.body.contains("second.cuesta@example.org"))
        let people = try database.count("select count(*) from people")

        let merged = try browser.post("/people/merge", [("csrf", try browser.csrf()), ("keep", calpoly), ("drop", "second.calpoly@example.org")])
        #expect(merged.status == 200 && merged.body.contains("Undo this run"), "\(merged.body)")
        #expect(try database.count("select count(*) from people") == people - 1)
        let run = try database.count("select max(id) from import_runs")
        #expect(try database.connect().query("select os_user from import_runs where id = \(run)").scalar(String.self) == "console:admin@cru.org")
        #expect(try browser.post("/runs/\(run)/undo", [("csrf", try browser.csrf())]).status == 200)
        #expect(try database.count("select count(*) from people") == people)

        let distinct = try browser.post("/people/distinct", [("csrf", try browser.csrf()), ("keep", cuesta), ("drop", "second.cuesta@example.org")])
        #expect(distinct.status == 303 && distinct.header("location") == "/people")
        #expect(!(try browser.get("/people").body.contains("second.cuesta@example.org")))
        let listed = try database.run(["people", "duplicates", "--format", "csv"])
        #expect(listed.stdout.contains("second.calpoly@example.org") && !listed.stdout.contains("second.cuesta@example.org"))
        #expect(try database.connect().query("select decided_by from people_not_duplicates").scalar(String.self) == "console:admin@cru.org")
    }

    @Test("a campus account sees and merges only its campuses' pairs; a POST without the token merges nothing")
    func campusPeople() throws {
        let (database, calpoly, cuesta) = try database()
        let browser = try ConsoleClient(serving: database)
        try browser.signIn("ana@cru.org", "long enough password")
        let page = try browser.get("/people")
        #expect(page.body.contains("second.calpoly@example.org") && !page.body.contains("second.cuesta@example.org"))
        let people = try database.count("select count(*) from people")
        #expect(try browser.post("/people/merge", [("csrf", try browser.csrf()), ("keep", cuesta), ("drop", "second.cuesta@example.org")]).status == 404)
        #expect(try browser.post("/people/merge", [("keep", calpoly), ("drop", "second.calpoly@example.org")]).status == 403)
        #expect(try database.count("select count(*) from people") == people)
        #expect(try browser.post("/people/merge", [("csrf", try browser.csrf()), ("keep", calpoly), ("drop", "second.calpoly@example.org")]).status == 200)
        #expect(try database.count("select count(*) from people") == people - 1)
    }
}
