import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// `crubatch import --from keystone DIR`: the old app's MongoDB data, from mongodump's BSON or
/// mongoexport's Extended JSON, into crubatch's kinds, once and repeatably.
@Suite("keystone migration")
struct KeystoneMigrationTests {
    private let scratch = ScratchDirectory()

    /// The faulty documents the generator adds with --faults (their ids count apart from the rest).
    private static let userWithoutEmail = "5a1f42019c0e4b2d17000801"
    private static let userWithShortPhone = "5a1f42029c0e4b2d17000802"
    private static let groupOfNoMinistry = "5a1f42039c0e4b2d17000803"
    private static let groupOnFunday = "5a1f42049c0e4b2d17000804"
    private static let passengerOfNoUser = "5a1f42059c0e4b2d17000805"

    /// The kinds a Keystone dump fills.
    private static let kinds: [Kind] = [.campuses, .ministries, .leaders, .students, .teams, .groups, .memberships,
                                        .events, .missions, .resources, .rideOffers, .rideRequests]

    private func migrate(_ database: TestDatabase, _ folder: String, _ options: [String] = []) throws -> CommandResult {
        try database.run(["import", "--from", "keystone", folder, "--format", "json"] + options)
    }

    /// Each file's counts in a JSON import report, by kind.
    private func counts(_ result: CommandResult) throws -> [String: [String: Any]] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        let files = try #require(report["files"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: files.map { ($0["kind"] as? String ?? "", $0) })
    }

    /// `export` of every kind the dump fills, and of the retreat's cars (`rides`).
    private func exports(_ database: TestDatabase) throws -> [String: String] {
        try Dictionary(uniqueKeysWithValues: (Self.kinds.map { [$0.rawValue] } + [["rides", "--event", "fall-retreat"]]).map { arguments in
            let name = arguments[0]
            let result = try database.run(["export"] + arguments)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            return (name, result.stdout)
        })
    }

    @Test("mongodump's BSON and mongoexport's relaxed and canonical JSON migrate to the same database")
    func bothFormatsGiveTheSameData() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let expected = try dump.expected()
        var first: [String: String]?
        for folder in [dump.root + "/dump", dump.relaxedJSON, dump.canonicalJSON] {
            let database = try TestDatabase()
            let result = try migrate(database, folder)
            #expect(result.status == 0, "\(folder): \(result.stderr)")
            let files = try counts(result)
            for kind in Self.kinds {
                #expect(files[kind.rawValue]?["inserted"] as? Int == expected[kind.rawValue], "\(folder): \(kind)")
            }
            #expect(try database.count("select count(*) from people where is_leader") == expected["leaders"])
            #expect(try database.count("select count(*) from people where not is_leader") == expected["students"])
            #expect(try database.count("select count(*) from memberships where status = 'active'") == expected["memberships"])
            #expect(try database.count("select count(*) from group_leaders") == expected["group_leaders"])
            #expect(try database.count("select count(*) from team_leaders") == expected["team_leaders"])
            #expect(try database.count("select count(*) from ride_pairings where ended_at is null") == expected["pairings"])
            // A backfill queues nothing that is sent.
            #expect(try database.count("select count(*) from notifications") > 0)
            #expect(try database.count("select count(*) from notifications where status <> 'suppressed'") == 0)
            // Passwords, device tokens and device types are never read: nowhere in the database, change log included.
            for (text, found) in [("ktanaka@calpoly.edu", 1), ("$2a$10$", 0), ("APA91bH", 0), ("gcm-", 0)] {
                #expect(try database.count("""
                    select count(*) from (select database_to_xml(true, false, '')::text as x) d where strpos(x, \(text)) > 0
                    """) == found, "\(text)")
            }
            // Every document of a kind is mapped (memberships are no document's own), and each group's slug.
            #expect(try database.count("select count(*) from legacy_ids where collection not like '%.slug'") == 37)
            #expect(try database.count("select count(*) from legacy_ids where collection = 'communitygroups.slug'") == 4)
            let exported = try exports(database)
            if let first {
                for (name, text) in first { #expect(exported[name] == text, "\(folder): export \(name) differs") }
            } else {
                first = exported
            }
        }
        let groups = try #require(first?["groups"])
        // A group's code is its ministry, name and day: its Keystone slug is made of its leaders' ids.
        #expect(groups.contains("cru-cal-poly-freshmen-men-mon,cru-cal-poly,Freshmen Men,Monday,19:30,,freshmen,men,,ktanaka@calpoly.edu,"), "\(groups)")
        #expect(groups.contains("epic-movement-mixed-bible-study-thu,epic-movement,Mixed Bible Study,Thursday,06:00,,mixed,mixed,"), "\(groups)")
        let leaders = try #require(first?["leaders"])
        #expect(leaders.contains("rrogers@calpoly.edu,Rachel,Rogers,+18055550102,female,cal-poly,student"), "\(leaders)")
        #expect(leaders.contains("andrea.ortiz@cru.org,Andrea,Ortiz,+18055550103,female,cal-poly,staff"), "\(leaders)")
        let missions = try #require(first?["missions"])
        #expect(missions.contains("ocean-city-beach-project,Ocean City Beach Project,2027-06-06,2027-07-17,\"Ocean City, MD\",3875.50,"), "\(missions)")
        // A ride both ways comes back when the event ends; a passenger is the user with that phone.
        let offers = try #require(first?["ride-offers"])
        #expect(offers.contains("fall-retreat,andrea.ortiz@cru.org,both,3,2026-10-16T15:00:00,2026-10-18T13:00:00,"), "\(offers)")
        let rides = try #require(first?["rides"])
        for rider in ["Ji-woo,Jung,(805) 555-0112,to the event and back,", "Daniel,Kim,(805) 555-0114,to the event,",
                      "Tomás,Silva,(805) 555-0116,to the event,"] {
            #expect(rides.contains(rider), "\(rider) is not seated:\n\(rides)")
        }
        #expect(!rides.contains("Sofia"), "a passenger without a driver was seated:\n\(rides)")
    }

    @Test("a second migration of the same data changes nothing; an undone run comes back on the next")
    func secondRunChangesNothing() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let database = try TestDatabase()
        let first = try migrate(database, dump.bson)
        #expect(first.status == 0, "\(first.stderr)")
        let tables = try database.tableCounts()
        let before = try exports(database)
        for folder in [dump.bson, dump.relaxedJSON] {
            let again = try migrate(database, folder)
            #expect(again.status == 0, "\(again.stderr)")
            for (kind, file) in try counts(again) {
                #expect(file["inserted"] as? Int == 0 && file["updated"] as? Int == 0, "\(kind): \(file)")
                #expect(file["unchanged"] as? Int == file["read"] as? Int, "\(kind): \(file)")
            }
        }
        #expect(try database.tableCounts() == tables)
        #expect(try exports(database) == before)

        let resourcesRun = try #require(try counts(first)["resources"]?["run_id"] as? Int)
        let shown = try database.run(["runs", "show", String(resourcesRun)])
        #expect(shown.status == 0 && shown.stdout.contains("resources"), "\(shown.stdout)\(shown.stderr)")
        let undo = try database.run(["undo", String(resourcesRun)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try database.count("select count(*) from resources") == 0)
        let back = try migrate(database, dump.bson)
        #expect(try counts(back)["resources"]?["inserted"] as? Int == 3)
        #expect(try exports(database) == before)
    }

    @Test("a group renamed in the old app keeps its code; a second group of the same name gets a code of its own")
    func codesAreKept() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let database = try TestDatabase()
        #expect(try migrate(database, dump.relaxedJSON).status == 0)
        let file = dump.relaxedJSON + "/communitygroups.json"
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let women = try #require(lines.firstIndex { $0.contains("\"name\":\"Freshmen Women\"") })
        lines.append(lines[women].replacingOccurrences(of: #"{"_id":{"$oid":""#, with: #"{"_id":{"$oid":"5a1f3aff9c0e4b2d170000ff"},"old":{"$oid":""#)
            .replacingOccurrences(of: "\"Tuesday\"", with: "\"Friday\""))
        lines = lines.map { $0.replacingOccurrences(of: "\"name\":\"Freshmen Men\"", with: "\"name\":\"First-Year Men\"") }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let again = try migrate(database, dump.relaxedJSON)
        #expect(again.status == 0, "\(again.stderr)")
        let groups = try counts(again)["groups"]
        #expect(groups?["updated"] as? Int == 1 && groups?["inserted"] as? Int == 1, "\(String(describing: groups))")
        let exported = try database.run(["export", "groups"]).stdout
        #expect(exported.contains("\ncru-cal-poly-freshmen-men-mon,cru-cal-poly,First-Year Men,Monday,"), "\(exported)")
        #expect(exported.contains("\ncru-cal-poly-freshmen-women-fri,cru-cal-poly,Freshmen Women,Friday,"), "\(exported)")
        #expect(try database.count("select count(*) from legacy_ids where collection = 'communitygroups'") == 5)
    }

    @Test("dangling references, a user without email, a 7-digit phone, an unknown day and a passenger of no user name the document")
    func faultsNameTheDocument() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"), faults: true)
        let database = try TestDatabase()
        let result = try database.run(["import", "--from", "keystone", dump.canonicalJSON])
        #expect(result.status == 1)
        for line in [
            "users/\(Self.userWithoutEmail):email: error[missing-value]: email is required but empty",
            "users/\(Self.userWithShortPhone):phone: error[invalid-phone]: phone: not a valid phone number",
            "communitygroups/\(Self.groupOfNoMinistry):ministry: error[unknown-reference]: ministry \"5a1f0000deadbeef00000000\" does not exist",
            "communitygroups/\(Self.groupOnFunday):dayOfWeek: error[invalid-choice]: day: \"Funday\" is not one of Monday,",
            "passengers/\(Self.passengerOfNoUser):phone: error[missing-value]: no user has this phone, so the ride has no one's email",
            "hint: no document of the dump has this ObjectId: correct the reference in the old app",
            "communitygroups/\(Self.groupOfNoMinistry):leaders: warning[unknown-reference]: users 5a1f0000deadbeef00000001 does not exist; left out of leaders",
        ] {
            #expect(result.stderr.contains(line), "\(line)\n\(result.stderr)")
        }
        #expect(!result.stderr.contains("5550122"), "a phone reached stderr")
        #expect(try database.count("select count(*) from people") == 0)
        #expect(try database.count("select count(*) from legacy_ids") == 0)

        let rejects = try scratch.folder("rejects")
        let skipped = try migrate(database, dump.bson, ["--on-error", "skip", "--rejects", rejects])
        #expect(skipped.status == 1)
        // The rejected rows in the kinds' own CSV format, to fix and import as files.
        let rejectedGroups = try String(contentsOfFile: rejects + "/groups.csv", encoding: .utf8)
        #expect(rejectedGroups.contains("\nlost-group-mon,5a1f0000deadbeef00000000,Lost Group,Monday,7:00pm,"), "\(rejectedGroups)")
        #expect(try FileManager.default.attributesOfItem(atPath: rejects + "/students.csv")[.posixPermissions] as? Int == 0o600)
        let files = try counts(skipped)
        #expect(files["students"]?["rejected"] as? Int == 2 && files["groups"]?["rejected"] as? Int == 2, "\(files)")
        #expect(files["groups"]?["inserted"] as? Int == 4)
        #expect(files["ride-requests"]?["rejected"] as? Int == 1 && files["ride-requests"]?["inserted"] as? Int == 4, "\(files)")
        #expect(try database.count("select count(*) from legacy_ids where collection not like '%.slug'") == 37)
        #expect(try database.count("""
            select count(*) from legacy_ids where object_id = any(\([Self.userWithoutEmail, Self.userWithShortPhone,
                                                                     Self.groupOfNoMinistry, Self.groupOnFunday,
                                                                     Self.passengerOfNoUser])::text[])
            """) == 0)
    }

    @Test("--dry-run reports what would change and writes nothing, legacy ids included")
    func dryRunWritesNothing() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let database = try TestDatabase()
        let result = try migrate(database, dump.root + "/dump", ["--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try counts(result)["groups"]?["would_insert"] as? Int == 4)
        #expect(try database.count("select count(*) from community_groups") == 0)
        #expect(try database.count("select count(*) from legacy_ids") == 0)
    }

    @Test("--from keystone takes the dump's folder and nothing that names files")
    func usage() throws {
        let database = try TestDatabase()
        #expect(try database.run(["import", "--from", "mongo", "x"]).status == 64)
        #expect(try database.run(["import", "--from", "keystone", "x", "--dir", "y"]).status == 64)
        #expect(try database.run(["import", "--from", "keystone", try scratch.folder("empty")]).status == 65)
        #expect(try database.run(["import", "--from", "keystone", "/nonexistent/dump"]).status == 66)
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let users = dump.bson + "/users.bson"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: users))
        try bytes.dropLast(7).write(to: URL(fileURLWithPath: users))
        let cut = try database.run(["import", "--from", "keystone", dump.bson])
        #expect(cut.status == 65)
        #expect(cut.stderr.contains("users.bson:12: document 12 is not BSON (cut short or corrupt)"), "\(cut.stderr)")
    }
}
