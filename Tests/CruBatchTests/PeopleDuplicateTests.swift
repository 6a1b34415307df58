import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The pairs of emails a `people duplicates --format csv` output lists, each as a set of two.
private func pairs(inCSV text: String) -> [Set<String>] {
    text.split(whereSeparator: \.isNewline).dropFirst().map { line in
        let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return [cells[1].lowercased(), cells[3].lowercased()]
    }
}

/// `crubatch people duplicates` on the labelled set of fixtures/people-duplicates (gen.py): 80 true
/// pairs of six kinds among 2,000 students, with siblings sharing a phone and a last name and
/// strangers sharing a common name, which are not duplicates.
@Suite("people duplicates")
struct PeopleDuplicateTests {
    private let scratch = ScratchDirectory()

    @Test("the labelled set is what gen.py writes: deterministic")
    func fixtureIsGenerated() throws {
        let folder = try scratch.folder("generated")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestEnvironment.fixture("people-duplicates/gen.py"), folder]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        for file in ["students.csv", "truth.csv"] {
            #expect(try sha256sum(folder + "/" + file) == sha256sum(TestEnvironment.fixture("people-duplicates/" + file)),
                    "fixtures/people-duplicates/\(file) is not what gen.py writes: run it again")
        }
    }

    @Test("a school of student-number addresses (s1234567@...): the student's own number at another domain still pairs them")
    func studentNumberAddresses() throws {
        let database = try TestDatabase()
        var text = "email,first_name,last_name\n"
        for n in 0..<30 { text += "s20\(26_000 + n * 37)@students.cuesta.edu,Student\(["Ana", "Ben", "Cai", "Dev", "Eli"][n % 5]),Number\(n)\n" }
        text += "s2029999@students.cuesta.edu,Marisol,Quintero-Vega\ns2029999@gmail.com,Marisol,Quintero\n"
        let file = try scratch.writeFile("students.csv", text)
        #expect(try database.run(["import", "students", file]).status == 0)
        let listed = try database.run(["people", "duplicates", "--format", "csv"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(pairs(inCSV: listed.stdout) == [["s2029999@students.cuesta.edu", "s2029999@gmail.com"]], "\(listed.stdout)")
    }

    /// One pair of each kind, and the look-alikes.
    private static let people = """
        email,first_name,last_name,phone,sex
        elizabeth.ward@calpoly.edu,Elizabeth,Ward,805-555-0201,female
        liz.ward@gmail.com,Liz,Ward,805-555-0201,female
        jose.ramirez@ucla.edu,José,Ramírez,310-555-0202,male
        pepe.ramirez@gmail.com,Pepe,RAMIREZ,310-555-0202,male
        lucyfoster@gmail.com,Lucy,Foster,,female
        lucy.foster+cru@googlemail.com,LUCY,FOSTER,,female
        nguyen.thanh@asu.edu,Thanh,Nguyen,480-555-0203,male
        thanh.nguyen@gmail.com,Nguyen,Thanh,480-555-0203,male
        jonathan.delacroix@sdsu.edu,Jonathan,Delacroix,619-555-0204,male
        jonathan.delacroix7@gmail.com,Jonathan,Delacrox,,male
        mgarcia@ucla.edu,Maria,Garcia,310-555-0205,female
        maria.garcia.22@yahoo.com,Maria,Garcia,310-555-0206,female
        sam.lee@calpoly.edu,Samuel,Lee,805-555-0207,male
        grace.lee@calpoly.edu,Grace,Lee,805-555-0207,female
        """

    @Test("each kind of evidence is named, look-alikes stay below the default, and every format lists the same pairs")
    func reasons() throws {
        let database = try TestDatabase()
        let file = try scratch.writeFile("students.csv", Self.people + "\n")
        #expect(try database.run(["import", "students", file]).status == 0)
        let text = try database.run(["people", "duplicates"])
        #expect(text.status == 0, "\(text.stderr)")
        print(text.stdout)
        for reason in ["nickname: Elizabeth / Liz", "nickname: José / Pepe", "email variant", "first and last name swapped",
                       "one letter apart: Delacrox / Delacroix", "same phone", "same email handle"] {
            #expect(text.stdout.contains(reason), "\(reason) in\n\(text.stdout)")
        }
        #expect(!text.stdout.contains("Garcia") && !text.stdout.contains("Grace"), "look-alikes listed:\n\(text.stdout)")
        #expect(text.stdout.contains("\n5 pairs scoring 70 or more; the weights are bits added to -"))
        let everything = try database.run(["people", "duplicates", "--min-score", "0", "--format", "csv"])
        #expect(pairs(inCSV: everything.stdout).contains(["mgarcia@ucla.edu", "maria.garcia.22@yahoo.com"]))
        #expect(pairs(inCSV: everything.stdout).contains(["sam.lee@calpoly.edu", "grace.lee@calpoly.edu"]))
        let json = try database.run(["people", "duplicates", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let listed = try #require(document["pairs"] as? [[String: Any]])
        #expect(listed.count == 5)
        #expect((listed.first?["keep"] as? [String: Any])?["email"] != nil && listed.first?["score"] as? Int == 100)
    }

    @Test("an import that adds a probable duplicate warns possible-duplicate naming the other email; --on-duplicate reject rejects the row")
    func atTheDoor() throws {
        let database = try TestDatabase()
        let file = try scratch.writeFile("students.csv", Self.people + "\n")
        #expect(try database.run(["import", "students", file]).status == 0)
        let newcomer = try scratch.writeFile("new.csv", """
            email,first_name,last_name,phone
            bob.king@gmail.com,Bob,King,
            lizzy.ward@yahoo.com,Lizzy,Ward,(805) 555-0201

            """)
        let warned = try database.run(["import", "students", newcomer])
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("new.csv:3:1: warning[possible-duplicate]: probably the same person as elizabeth.ward@calpoly.edu"),
                "\(warned.stderr)")
        #expect(try database.count("select count(*) from people where email = 'lizzy.ward@yahoo.com'") == 1)
        let again = try scratch.writeFile("again.csv", "email,first_name,last_name,phone\nbeth.ward@outlook.com,Beth,Ward,805-555-0201\n")
        let rejected = try database.run(["import", "students", again, "--on-duplicate", "reject"])
        #expect(rejected.status == 1)
        #expect(rejected.stderr.contains("again.csv:2:1: error[possible-duplicate]"), "\(rejected.stderr)")
        #expect(try database.count("select count(*) from people where email = 'beth.ward@outlook.com'") == 0)
    }
}

/// `crubatch people merge` against central-coast: a student who asked for a ride and is in a group
/// (DROP), and a second record of them (KEEP) in one of the same groups, joined later.
@Suite("people merge")
struct PeopleMergeTests {
    private let scratch = ScratchDirectory()

    /// The database, and the emails to keep and to drop.
    private func twoRecords() throws -> (TestDatabase, keep: String, drop: String) {
        let database = try TestDatabase(importing: "central-coast")
        let drop = try #require(try database.connect().query("""
            select p.email from people p where not p.is_leader
            and exists (select 1 from ride_requests r where r.passenger_id = p.id)
            and exists (select 1 from memberships m join notifications n on n.membership_id = m.id where m.person_id = p.id)
            and exists (select 1 from memberships m join community_groups g on g.id = m.group_id where m.person_id = p.id
                        and coalesce(g.capacity, 1000) > (select count(*) from memberships x where x.group_id = g.id))
            order by p.email limit 1
            """).text)
        let group = try #require(try database.connect().query("""
            select g.code from memberships m join community_groups g on g.id = m.group_id join people p on p.id = m.person_id
            where p.email = \(drop)
            order by coalesce(g.capacity, 1000) - (select count(*) from memberships x where x.group_id = g.id) desc, g.code limit 1
            """).text)
        let keep = "second.record@example.edu"
        let students = try scratch.writeFile("keep.csv", "email,first_name,last_name,school_year\n\(keep),Second,Record,\n")
        #expect(try database.run(["import", "students", students]).status == 0)
        let joins = try scratch.writeFile("joins.csv", "group,email,joined_at,status\n\(group),\(keep),2026-11-20T10:00:00-08:00,active\n")
        #expect(try database.run(["import", "memberships", joins, "--no-notify"]).status == 0)
        return (database, keep, drop)
    }

    /// Every row of the tables a merge touches, as text, to show they are exactly as they were.
    private func fingerprint(_ database: TestDatabase) throws -> String {
        try database.fingerprint(["people", "memberships", "ride_requests", "notifications", "person_ministries"])
    }

    @Test("merge moves memberships (a group both are in keeps the earlier join), rides and messages, queues nothing, and keeps the alias for the next import")
    func mergeMovesEverything() throws {
        let (database, keep, drop) = try twoRecords()
        let connection = try database.connect()
        let dropMemberships = try database.count("select count(*) from memberships m join people p on p.id = m.person_id where p.email = \(drop)")
        let earliest = try connection.query("""
            select min(m.joined_at)::text from memberships m join people p on p.id = m.person_id where p.email = \(drop)
            """).text
        let notifications = try database.count("select count(*) from notifications")
        let about = { (email: String) throws -> Int in
            try database.count("""
                select count(*) from notifications n join memberships m on m.id = n.membership_id join people p on p.id = m.person_id
                where p.email = \(email)
                """)
        }
        let aboutBoth = try about(drop) + about(keep)

        let merge = try database.run(["people", "merge", keep, drop])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.contains("merged \(drop) into \(keep)"), "\(merge.stdout)")
        #expect(try database.count("select count(*) from people where email = \(drop)") == 0)
        #expect(try database.count("select count(*) from memberships m join people p on p.id = m.person_id where p.email = \(keep)")
            == dropMemberships)
        #expect(try database.count("""
            select count(*) from (select group_id from memberships m join people p on p.id = m.person_id
                                  where p.email = \(keep) group by group_id having count(*) > 1) twice
            """) == 0)
        #expect(try connection.query("""
            select min(m.joined_at)::text from memberships m join people p on p.id = m.person_id where p.email = \(keep)
            """).text == earliest)
        #expect(try database.count("select count(*) from ride_requests r join people p on p.id = r.passenger_id where p.email = \(keep)") >= 1)
        #expect(try database.count("select count(*) from notifications") == notifications, "a merge queues no message")
        #expect(try about(keep) == aboutBoth, "the messages about DROP's memberships are about KEEP's now")
        #expect(try connection.query("select p.email from person_aliases a join people p on p.id = a.person_id where a.email = \(drop)")
            .text == keep)

        // The next import of the dropped email updates the person kept.
        let people = try database.count("select count(*) from people")
        let later = try scratch.writeFile("later.csv", "email,first_name,last_name,school_year\n\(drop.uppercased()),Second,Record,4\n")
        let load = try database.run(["import", "students", later])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try database.count("select count(*) from people") == people)
        #expect(try database.count("select school_year::int from people where email = \(keep)") == 4)
        // A file naming the dropped email as a group's member names the person kept.
        let group = try #require(try connection.query("""
            select g.code from community_groups g where g.archived_at is null and g.sex = 'mixed' and g.audience = 'mixed'
            and coalesce(g.capacity, 1000) > (select count(*) from memberships x where x.group_id = g.id)
            and not exists (select 1 from memberships m join people p on p.id = m.person_id
                            where m.group_id = g.id and p.email = \(keep))
            order by g.code limit 1
            """).text)
        let joins = try scratch.writeFile("more.csv", "group,email,status\n\(group),\(drop),active\n")
        let join = try database.run(["import", "memberships", joins])
        #expect(join.status == 0, "\(join.stderr)")
        #expect(try database.count("""
            select count(*) from memberships m join people p on p.id = m.person_id join community_groups g on g.id = m.group_id
            where p.email = \(keep) and g.code = \(group)
            """) == 1)
    }

    @Test("merge --dry-run says what would move and writes nothing: every row of the tables it touches as it was")
    func dryRunWritesNothing() throws {
        let (database, keep, drop) = try twoRecords()
        let rows = try fingerprint(database)
        let merge = try database.run(["people", "merge", keep, drop, "--dry-run"])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.contains("would merge \(drop) into \(keep): "), "\(merge.stdout)")
        #expect(merge.stdout.contains("membership"), "\(merge.stdout)")
        #expect(merge.stdout.contains("nothing was written"), "\(merge.stdout)")
        #expect(try fingerprint(database) == rows)
        #expect(try database.count("select count(*) from person_aliases") == 0)
        #expect(try database.count("select count(*) from import_runs where kind = 'people-merge' and dry_run") == 1)
    }

    @Test("merge refuses to break a seated ride: the two in one car, or both driving to one event; after a cancel it merges")
    func seatedRidesAreNotBroken() throws {
        let database = try TestDatabase(importing: "central-coast")
        #expect(try database.run(["rides", "pair", "--no-notify"]).status != 64)
        let connection = try database.connect()
        let (event, driver, passenger) = try #require(try connection.query("""
            select e.id, o.driver_id, r.passenger_id from ride_pairings p join ride_offers o on o.id = p.offer_id
            join ride_requests r on r.id = p.request_id join events e on e.id = o.event_id
            where p.ended_at is null order by o.id limit 1
            """).rows.first.map { try $0.decode((Int, Int, Int).self) })
        let email = { (id: Int) throws -> String in try #require(try connection.query("select email from people where id = \(id)").text) }
        let otherOffer = try #require(try connection.query("""
            select o.id, o.driver_id from ride_offers o where o.event_id = \(event) and o.driver_id <> \(driver)
            and exists (select 1 from ride_pairings p where p.offer_id = o.id and p.ended_at is null) order by o.id limit 1
            """).rows.first.map { try $0.decode((Int, Int).self) })
        let rows = try fingerprint(database)

        let sameCar = try database.run(["people", "merge", try email(driver), try email(passenger)])
        #expect(sameCar.status == 1, "\(sameCar.stderr)")
        #expect(sameCar.stderr.contains("one rides in the other's car"), "\(sameCar.stderr)")
        let twoCars = try database.run(["people", "merge", try email(driver), try email(otherOffer.1)])
        #expect(twoCars.status == 1, "\(twoCars.stderr)")
        #expect(twoCars.stderr.contains("both drive, and the car being merged away has passengers (offer \(otherOffer.0))"),
                "\(twoCars.stderr)")
        #expect(try fingerprint(database) == rows, "a refused merge changes nothing")

        #expect(try database.run(["rides", "cancel", "--offer", String(otherOffer.0), "--no-notify"]).status == 0)
        let merged = try database.run(["people", "merge", try email(driver), try email(otherOffer.1)])
        #expect(merged.status == 0, "\(merged.stderr)")
    }

    @Test("undo of a merge puts both people back: export students byte for byte, every row of the tables it touched")
    func undoRestoresBoth() throws {
        let (database, keep, drop) = try twoRecords()
        let before = try database.run(["export", "students"])
        let rows = try fingerprint(database)
        let merge = try database.run(["people", "merge", keep, drop, "--format", "json"])
        #expect(merge.status == 0, "\(merge.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(merge.stdout.utf8)) as? [String: Any])
        let run = try #require(document["run_id"] as? Int)
        #expect(try database.run(["export", "students"]).stdout != before.stdout)

        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.contains("person_aliases 0 restored, 1 removed"), "\(undo.stdout)")
        let after = try database.run(["export", "students"])
        #expect(after.stdout == before.stdout)
        #expect(after.stdout.utf8.count > 10_000)
        #expect(try fingerprint(database) == rows)
        #expect(try database.count("select count(*) from person_aliases") == 0)
    }

    @Test("forget of the person kept erases their aliases and the dropped record's data in earlier change images")
    func forgetErasesAliases() throws {
        let (database, keep, drop) = try twoRecords()
        let dropRow = try database.connect().query("select id::text, last_name from people where email = \(drop)").texts[0]
        let (dropID, dropName) = (try #require(Int(dropRow[0] ?? "")), dropRow[1] ?? "")
        #expect(try database.run(["people", "merge", keep, drop]).status == 0)
        #expect(try database.count("select count(*) from run_changes where before::text like '%' || \(drop) || '%'") > 0)

        let forget = try database.run(["forget", keep])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try database.count("select count(*) from person_aliases") == 0)
        for table in ["run_changes", "people", "person_aliases", "notifications"] {
            #expect(try database.count("""
                select count(*) from \(unescaped: SQLFragment(identifier: table)) t where t::text like '%' || \(drop) || '%'
                """) == 0, "\(table) still holds the dropped email")
        }
        #expect(try database.count("""
            select count(*) from run_changes where table_name = 'people' and row_id = \(dropID)
            and \(dropName) in (before->>'last_name', after->>'last_name')
            """) == 0, "the dropped record's name is still in a change image")
    }

    @Test("forget under an email merged into someone forgets that person, in the database and in the nightly folders")
    func forgetByAlias() throws {
        let (database, keep, drop) = try twoRecords()
        let nightly = try scratch.folder("nightly")
        #expect(try database.run(["nightly", "--out", nightly]).status == 0)
        #expect(try database.run(["people", "merge", keep, drop]).status == 0)
        let forget = try database.run(["forget", drop.uppercased()])
        #expect(forget.status == 0, "\(forget.stdout)\(forget.stderr)")
        #expect(try database.count("select count(*) from people where lower(email) = \(keep)") == 0)
        #expect(try database.count("select count(*) from people where forgotten_at is not null") == 1)
        #expect(try database.count("select count(*) from person_aliases") == 0)
        let files = try FileManager.default.subpathsOfDirectory(atPath: nightly).filter { $0.hasSuffix(".csv") }
        for file in files {
            let text = try String(contentsOfFile: nightly + "/" + file, encoding: .utf8).lowercased()
            #expect(!text.contains(drop) && !text.contains(keep), "\(file) still names them")
        }
        let unknown = try database.run(["forget", "nobody@example.edu"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no person has this email, nor was it merged into anyone"))
    }

    @Test("a merge given an alias names the people merged: C <- B after A <- B merges A; p1 <- p2, p2 <- p3 makes p3 an alias of p1")
    func mergeChainsNameThePeople() throws {
        let database = try TestDatabase()
        let students = try scratch.writeFile("students.csv", """
            email,first_name,last_name,phone
            a@example.edu,Ann,Able,805-555-0401
            b@example.edu,Ann,Able,805-555-0401
            c@example.edu,Ann,Able,
            p1@example.edu,Pat,Poe,805-555-0402
            p2@example.edu,Pat,Poe,805-555-0402
            p3@example.edu,Pat,Poe,

            """)
        #expect(try database.run(["import", "students", students]).status == 0)
        #expect(try database.run(["people", "merge", "a@example.edu", "b@example.edu"]).status == 0)
        let chained = try database.run(["people", "merge", "c@example.edu", "b@example.edu"])
        #expect(chained.status == 0, "\(chained.stderr)")
        #expect(chained.stdout.contains("merged a@example.edu into c@example.edu (b@example.edu is an alias of a@example.edu): "),
                "\(chained.stdout)")
        #expect(chained.stdout.contains("a@example.edu and its aliases b@example.edu are now aliases of c@example.edu"), "\(chained.stdout)")

        let pairs = try scratch.writeFile("pairs.csv", "keep_email,drop_email\np1@example.edu,p2@example.edu\np2@example.edu,p3@example.edu\n")
        let fromFile = try database.run(["people", "merge", "--from", pairs, "--format", "json"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(fromFile.stdout.utf8)) as? [String: Any])
        let merged = try #require(report["merged"] as? [[String: Any]])
        #expect(merged.map { "\($0["drop"]!) -> \($0["keep"]!) asked \($0["asked_keep"]!)" }
                == ["p2@example.edu -> p1@example.edu asked p1@example.edu", "p3@example.edu -> p1@example.edu asked p2@example.edu"])
        let aliases = try database.connect().query("""
            select a.email, p.email from person_aliases a join people p on p.id = a.person_id order by a.email
            """).texts.map { "\($0[0]!) of \($0[1]!)" }
        #expect(aliases == ["a@example.edu of c@example.edu", "b@example.edu of c@example.edu",
                            "p2@example.edu of p1@example.edu", "p3@example.edu of p1@example.edu"])
    }

    @Test("a merge cycle (A <- B, then B <- A, in one file or two runs) is refused as one person already, changing nothing")
    func mergeCycle() throws {
        let database = try TestDatabase()
        let students = try scratch.writeFile("cycle.csv", "email,first_name,last_name\na@example.edu,Ann,Able\nb@example.edu,Ann,Able\n")
        #expect(try database.run(["import", "students", students]).status == 0)
        let before = try fingerprint(database)
        let pairs = try scratch.writeFile("cycle-pairs.csv", "keep_email,drop_email\na@example.edu,b@example.edu\nb@example.edu,a@example.edu\n")
        let inOneFile = try database.run(["people", "merge", "--from", pairs])
        #expect(inOneFile.status == 1, "\(inOneFile.stdout)\(inOneFile.stderr)")
        #expect(inOneFile.stderr.contains("b@example.edu and a@example.edu are one person already"), "\(inOneFile.stderr)")
        #expect(try fingerprint(database) == before)
        #expect(try database.run(["people", "merge", "a@example.edu", "b@example.edu"]).status == 0)
        let back = try database.run(["people", "merge", "b@example.edu", "a@example.edu"])
        #expect(back.status == 1 && back.stderr.contains("are one person already"), "\(back.stderr)")
        #expect(try database.count("select count(*) from people") == 1)
    }

    @Test("two merges of one person at once: one merges, the other waits its turn or is refused; never two keepers of one alias")
    func twoMergesAtOnce() throws {
        let database = try TestDatabase()
        let students = try scratch.writeFile("three.csv", """
            email,first_name,last_name
            a@example.edu,Ann,Able
            b@example.edu,Ann,Able
            c@example.edu,Ann,Able

            """)
        #expect(try database.run(["import", "students", students]).status == 0)
        let first = try database.start(["people", "merge", "a@example.edu", "b@example.edu"])
        let second = try database.start(["people", "merge", "c@example.edu", "b@example.edu"])
        let results = [try first.finish(), try second.finish()]
        #expect(results.contains { $0.status == 0 }, "\(results.map(\.stderr))")
        for result in results where result.status != 0 {
            #expect(result.status == 75 || result.status == 1, "\(result.stderr)")
        }
        // Whatever the order, every alias belongs to someone there, and b is nobody's record now.
        #expect(try database.count("select count(*) from person_aliases a where not exists (select 1 from people p where p.id = a.person_id)") == 0)
        #expect(try database.count("select count(*) from people where email = 'b@example.edu'") == 0)
        #expect(try database.count("select count(*) from person_aliases where email = 'b@example.edu'") == 1)
        #expect(try database.count("select count(*) from people") == 3 - results.filter { $0.status == 0 }.count)
    }

    @Test("merge --from a reviewed duplicates CSV merges each pair in one run; a missing person changes nothing")
    func mergeFromFile() throws {
        let database = try TestDatabase()
        let students = try scratch.writeFile("students.csv", """
            email,first_name,last_name,phone
            ann.shaw@calpoly.edu,Annabelle,Shaw,805-555-0301
            ann.shaw+x@gmail.com,Annabelle,Shaw,805-555-0301
            bill.ortiz@calpoly.edu,William,Ortiz,805-555-0302
            billy.ortiz@gmail.com,Billy,Ortiz,805-555-0302

            """)
        #expect(try database.run(["import", "students", students]).status == 0)
        let pairs = try scratch.writeFile("pairs.csv", try database.run(["people", "duplicates", "--format", "csv"]).stdout)
        let merged = try database.run(["people", "merge", "--from", pairs])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try database.count("select count(*) from people") == 2)
        #expect(try database.count("select count(*) from person_aliases") == 2)
        #expect(try database.count("select count(*) from import_runs where kind = 'people-merge'") == 1)

        let missing = try database.run(["people", "merge", "ann.shaw@calpoly.edu", "nobody@example.edu"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no person has the email nobody@example.edu"), "\(missing.stderr)")

        // From a pairs file, a refusal and a blank cell name the file and the line (and the cell's column).
        let unknown = try scratch.writeFile("unknown.csv", "keep_email,drop_email\nann.shaw@calpoly.edu,nobody@example.edu\n")
        let refused = try database.run(["people", "merge", "--from", unknown])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(unknown):2: no person has the email nobody@example.edu (DROP)"), "\(refused.stderr)")
        let blank = try scratch.writeFile("blank.csv", "score,keep_email,drop_email\n90,ann.shaw@calpoly.edu,\n")
        let unreadable = try database.run(["people", "merge", "--from", blank])
        #expect(unreadable.status == 65)
        #expect(unreadable.stderr.contains("\(blank):2:3: drop_email is empty"), "\(unreadable.stderr)")
    }
}
