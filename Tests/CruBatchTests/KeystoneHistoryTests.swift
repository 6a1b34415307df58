import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// The old app's documents as its models saved them over two years (docs/keystone-history.md):
/// the fixture dump of fixtures/keystone/history.py lands document by document as expected.json
/// says, and its reconciliation accounts for every document and every field; then each older shape
/// on a small dump of its own.
@Suite("keystone migration: every shape the old app saved")
struct KeystoneHistoryTests {
    private let scratch = ScratchDirectory()

    /// The kinds a migration fills, as exported for check.py.
    private static let kinds = ["campuses", "ministries", "teams", "leaders", "groups", "students", "memberships", "events",
                                "missions", "resources", "ride-offers", "ride-requests"]

    @Test("history.py's dump: every document has the outcome expected.json gives it, every fact checked by check.py")
    func everyDocumentAsExpected() throws {
        let root = try scratch.folder("history")
        _ = try Python.run(script: "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
                           arguments: [TestEnvironment.fixture("keystone/history.py"), root])
        let database = try TestDatabase()
        let result = try database.run(["import", "--from", "keystone", root + "/dump", "--on-error", "skip", "--format", "json"])
        #expect(result.status == 1, "refused documents make exit 1: \(result.stderr)")
        try writeFile(root + "/report.json", result.stdout)
        let exports = try scratch.folder("history-exports")
        for kind in Self.kinds {
            #expect(try database.run(["export", kind, "--out", "\(exports)/\(kind).csv"]).status == 0)
        }
        let check = try CommandResult.run([TestEnvironment.fixture("keystone/check.py"), root + "/expected.json", root + "/report.json",
                                           exports, database.url], executable: "/usr/bin/python3")
        print(check.stdout.split(separator: "\n").last ?? "")
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")

        // The reconciliation: read = migrated + refused + not migrated, collection by collection, and the
        // counts and unread fields expected.json derives from docs/keystone-history.md.
        let expected = try #require(try jsonObject(String(contentsOfFile: root + "/expected.json", encoding: .utf8))["reconciliation"] as? [String: [String: Any]])
        let collections = try #require((try jsonObject(result.stdout)["reconciliation"] as? [String: Any])?["collections"] as? [[String: Any]])
        #expect(Set(collections.compactMap { $0["collection"] as? String }) == Set(expected.keys))
        for collection in collections {
            let name = collection["collection"] as? String ?? ""
            let read = collection["read"] as? Int ?? -1, migrated = collection["migrated"] as? Int ?? -1
            let refused = (collection["refused"] as? [String: Int] ?? [:]).values.reduce(0, +)
            let notMigrated = (collection["not_migrated"] as? [String: Int] ?? [:]).values.reduce(0, +)
            #expect(read == migrated + refused + notMigrated, "\(name): \(collection)")
            let want = try #require(expected[name])
            #expect([read, migrated, refused, notMigrated] == ["read", "migrated", "refused", "not_migrated"].map { want[$0] as? Int ?? -1 },
                    "\(name): \(collection) against \(want)")
            #expect(collection["unread_fields"] as? [String: Int] ?? [:] == want["unread_fields"] as? [String: Int] ?? [:],
                    "\(name): fields not read")
        }
    }

    @Test("every field the migration leaves unread is one docs/keystone-history.md lists as not migrated")
    func unreadFieldsAreDocumented() throws {
        let text = try String(contentsOfFile: TestEnvironment.root.appendingPathComponent("docs/keystone-history.md").path, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Fields not migrated").last)
        let listed = Set(section.split(separator: "\n").compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":"), line.contains("."), !line.hasPrefix("`") else { return nil }
            return String(line[..<colon]).components(separatedBy: " if ").first
        })
        let root = try scratch.folder("history-doc")
        _ = try Python.run(script: "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
                           arguments: [TestEnvironment.fixture("keystone/history.py"), root])
        let database = try TestDatabase()
        let result = try database.run(["import", "--from", "keystone", root + "/dump", "--on-error", "skip", "--dry-run", "--format", "json"])
        let collections = try #require((try jsonObject(result.stdout)["reconciliation"] as? [String: Any])?["collections"] as? [[String: Any]])
        for collection in collections {
            for field in (collection["unread_fields"] as? [String: Int] ?? [:]).keys {
                let name = "\(collection["collection"] as? String ?? "").\(field)"
                #expect(listed.contains(name), "\(name) is not read but docs/keystone-history.md does not list it")
            }
        }
    }

    // MARK: Each older shape on a dump of its own

    /// Writes a dump of mongoexport's relaxed Extended JSON lines: collection -> documents.
    private func dump(_ collections: [String: [String]]) throws -> String {
        let folder = try scratch.folder("dump-\(UUID().uuidString.prefix(8))")
        for (name, documents) in collections {
            try writeFile("\(folder)/\(name).json", documents.joined(separator: "\n") + "\n")
        }
        return folder
    }

    private static func oid(_ number: Int) -> String { String(format: "{\"$oid\":\"5a1f3a009c0e4b2d17%06x\"}", number) }

    private static let campus = #"{"_id":\#(oid(1)),"slug":"cal-poly","name":"Cal Poly","location":{"suburb":"San Luis Obispo","state":"CA","country":"USA"}}"#
    private static let cuesta = #"{"_id":\#(oid(2)),"slug":"cuesta","name":"Cuesta College"}"#

    /// A user document: `fields` is the rest of its JSON (after the name).
    private static func user(_ number: Int, _ first: String, _ last: String, _ fields: String) -> String {
        #"{"_id":\#(oid(number)),"name":{"first":"\#(first)","last":"\#(last)"},\#(fields)}"#
    }

    private func migrate(_ folder: String, into database: TestDatabase, _ options: [String] = []) throws -> CommandResult {
        try database.run(["import", "--from", "keystone", folder] + options)
    }

    @Test("a ministry saved before 2016-04 with only campuses: [id] has that campus; its team, group and students land")
    func ministryWithCampusesList() throws {
        let folder = try dump([
            "campus": [Self.campus],
            "ministries": [#"{"_id":\#(Self.oid(10)),"slug":"destino","name":"Destino","campuses":[\#(Self.oid(1))]}"#],
            "ministryteams": [#"{"_id":\#(Self.oid(11)),"slug":"destino-team","name":"Destino Team","parentMinistry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#],
            "communitygroups": [#"{"_id":\#(Self.oid(12)),"slug":"5a1f","name":"Bible Study","meetingTime":"7:00pm","dayOfWeek":"Tuesday","ministry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#],
            "users": [Self.user(20, "Maria", "Gonzalez", #""email":"mg@calpoly.edu","phone":"8055550121","isCommunityGroupLeader":true"#),
                      Self.user(21, "Ana", "Ruiz", #""email":"ar@calpoly.edu","communityGroups":[\#(Self.oid(12))]"#)],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.connect().query("select c.code from ministries m join campuses c on c.id = m.campus_id where m.code = 'destino'").text == "cal-poly")
        #expect(try database.count("select count(*) from ministry_teams") == 1)
        #expect(try database.count("select count(*) from memberships m join community_groups g on g.id = m.group_id where g.code = 'destino-bible-study-tue'") == 1)
    }

    @Test("a ministry listing two campuses is refused with why, and its group says it was refused above, naming the ministry")
    func ministryOfTwoCampusesIsRefusedAndNamed() throws {
        let folder = try dump([
            "campus": [Self.campus, Self.cuesta],
            "ministries": [#"{"_id":\#(Self.oid(10)),"slug":"destino","name":"Destino","campuses":[\#(Self.oid(1)),\#(Self.oid(2))]}"#],
            "communitygroups": [#"{"_id":\#(Self.oid(12)),"name":"Bible Study","meetingTime":"7:00pm","dayOfWeek":"Tuesday","ministry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#],
            "users": [Self.user(20, "Maria", "Gonzalez", #""email":"mg@calpoly.edu","phone":"8055550121""#)],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(result.status == 1, "\(result.stderr)")
        let ministry = "ministries/5a1f3a009c0e4b2d1700000a"
        #expect(result.stderr.contains("\(ministry):campuses: error[refused-document]: campuses lists 2 campuses (cal-poly, cuesta)"), "\(result.stderr)")
        #expect(result.stderr.contains("communitygroups/5a1f3a009c0e4b2d1700000c:ministry: error[unknown-reference]: ministry \"destino\" was refused above, so it does not exist\n  note: \(ministry):campuses: campuses lists 2 campuses"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("no document of the dump has this ObjectId"))
        #expect(try database.count("select count(*) from ministries") == 0)
        #expect(try database.count("select count(*) from campuses") == 2)
        #expect(result.stdout.contains("  ministries: 1 several campuses"), "\(result.stdout)")
        #expect(result.stdout.contains("  communitygroups: 1 refused above (ministry)"), "\(result.stdout)")
    }

    @Test("staff saved before staffRole existed are staff leaders; a saved default Staff on a student is set aside; MTL or Intern without isStaff is refused")
    func staffRoles() throws {
        let folder = try dump([
            "users": [Self.user(20, "Ryan", "Clark", #""email":"ryan@cru.org","phone":8055550101.0,"isStaff":true"#),
                      Self.user(21, "Tom", "Silva", #""email":"tom@cuesta.edu","staffRole":"Staff","isStaff":false"#),
                      Self.user(22, "Olivia", "Chen", #""email":"olivia@cru.org","phone":"8055550103","staffRole":"Intern","isStaff":false"#),
                      Self.user(23, "Hannah", "Lee", #""email":"hannah@calpoly.edu","phone":"8055550104","isMinistryTeamLeader":true"#)],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(result.status == 1, "\(result.stderr)")
        let people = try database.connect().query("""
            select email || ' ' || is_leader || ' ' || is_staff || ' ' || coalesce(staff_role, '-') from people order by email
            """).texts.map { $0[0] ?? "" }
        #expect(people == ["hannah@calpoly.edu true false student", "ryan@cru.org true true staff", "tom@cuesta.edu false false -"], "\(people)")
        #expect(try database.connect().query("select phone from people where email = 'ryan@cru.org'").text == "+18055550101")
        #expect(result.stderr.contains("users/5a1f3a009c0e4b2d17000016:staffRole: error[refused-document]: staffRole is Intern but isStaff is not set"), "\(result.stderr)")
    }

    @Test("a phone two users share names the one whose name the ride gives; when the name is neither's the row is refused naming both")
    func sharedPhones() throws {
        let event = #"{"_id":\#(Self.oid(30)),"slug":"retreat","name":"Retreat","startDate":{"$date":"2017-10-14T00:00:00Z"},"endDate":{"$date":"2017-10-15T21:00:00Z"},"rideSharing":true,"location":{"suburb":"Cambria"},"ministries":[]}"#
        let pickup = #""location":{"street1":"1 Grand Ave","suburb":"San Luis Obispo"}"#
        let folder = try dump([
            "events": [event],
            "users": [Self.user(20, "Daniel", "Kim", #""email":"dkim@calpoly.edu","phone":"8055550140""#),
                      Self.user(21, "Grace", "Kim", #""email":"gkim@calpoly.edu","phone":"(805) 555-0140""#)],
            "rides": [#"{"_id":\#(Self.oid(40)),"event":\#(Self.oid(30)),"driverName":"Daniel Kim","driverNumber":"805-555-0140","seats":3,"direction":"to","time":{"$date":"2017-10-13T23:00:00Z"},\#(pickup),"passengers":[\#(Self.oid(50))]}"#],
            "passengers": [#"{"_id":\#(Self.oid(50)),"name":"Grace Kim","phone":"8055550140","direction":"to","event":\#(Self.oid(30)),\#(pickup),"has_driver":true}"#,
                           #"{"_id":\#(Self.oid(51)),"name":"Joe Kim","phone":"8055550140","direction":"to","event":\#(Self.oid(30)),\#(pickup)}"#],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(try database.connect().query("""
            select d.email || ' drives ' || q.email from ride_pairings p join ride_offers o on o.id = p.offer_id
            join people d on d.id = o.driver_id join ride_requests r on r.id = p.request_id join people q on q.id = r.passenger_id
            """).texts.map { $0[0] ?? "" } == ["dkim@calpoly.edu drives gkim@calpoly.edu"])
        #expect(result.stderr.contains("passengers/5a1f3a009c0e4b2d17000033:phone: error[refused-document]: users/5a1f3a009c0e4b2d17000014 and users/5a1f3a009c0e4b2d17000015 share this phone, and the name given is neither's"),
                "\(result.stderr)")
        #expect(try database.count("select count(*) from people") == 2, "nobody new was made of the refused passenger")
        #expect(!result.stderr.contains("555"), "a phone reached stderr")
    }

    @Test("a phone only a user who is not migrated has refuses the passenger with that user's reason, rather than making someone new")
    func refusedUsersPhone() throws {
        let event = #"{"_id":\#(Self.oid(30)),"slug":"retreat","name":"Retreat","startDate":{"$date":"2017-10-14T00:00:00Z"},"endDate":{"$date":"2017-10-15T21:00:00Z"},"rideSharing":true,"ministries":[]}"#
        let folder = try dump([
            "events": [event],
            "users": [Self.user(20, "Tom", "Nguyen", #""phone":"8055550150""#)],
            "passengers": [#"{"_id":\#(Self.oid(50)),"name":"Tom Nguyen","phone":"805-555-0150","direction":"to","event":\#(Self.oid(30)),"location":{"suburb":"SLO"}}"#],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(result.stderr.contains("passengers/5a1f3a009c0e4b2d17000032:phone: error[refused-document]: the user with this phone, users/5a1f3a009c0e4b2d17000014, is not migrated: it has no email"),
                "\(result.stderr)")
        #expect(try database.count("select count(*) from people") == 0)
        #expect(try database.count("select count(*) from ride_requests") == 0)
    }

    @Test("events saved with parentMinistry (2015) or parentMinistries (2016) belong to those ministries")
    func eventsOfOldShapes() throws {
        let ministries = [#"{"_id":\#(Self.oid(10)),"slug":"cru","name":"Cru","campus":\#(Self.oid(1))}"#,
                          #"{"_id":\#(Self.oid(11)),"slug":"destino","name":"Destino","campus":\#(Self.oid(1))}"#]
        let folder = try dump([
            "campus": [Self.campus],
            "ministries": ministries,
            "events": [#"{"_id":\#(Self.oid(30)),"slug":"fall-2015","name":"Fall 2015","startDate":{"$date":"2015-11-14T01:00:00Z"},"endDate":{"$date":"2015-11-15T22:00:00Z"},"parentMinistry":\#(Self.oid(10)),"rideSharingEnabled":true}"#,
                       #"{"_id":\#(Self.oid(31)),"slug":"winter-2016","name":"Winter 2016","startDate":{"$date":"2016-02-27T00:00:00Z"},"endDate":{"$date":"2016-02-28T20:00:00Z"},"parentMinistries":[\#(Self.oid(10)),\#(Self.oid(11))]}"#],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database)
        #expect(result.status == 0, "\(result.stderr)")
        let owned = try database.connect().query("""
            select e.code || ':' || string_agg(m.code, ',' order by m.code) from events e
            join event_ministries em on em.event_id = e.id join ministries m on m.id = em.ministry_id group by e.code order by e.code
            """).texts.map { $0[0] ?? "" }
        #expect(owned == ["fall-2015:cru", "winter-2016:cru,destino"])
        #expect(try database.connect().query("select rideshare from events where code = 'fall-2015'").text != "no")
    }

    @Test("a group's code is made of its ministry, name and day, stays on the next run, and its leader-id slug is kept as a legacy id")
    func readableGroupCodes() throws {
        let group = #"{"_id":\#(Self.oid(12)),"slug":"5a1f3a009c0e4b2d17000014","name":"Destino Bible Study","meetingTime":"7:00pm","dayOfWeek":"Tuesday","ministry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#
        let collections = [
            "campus": [Self.campus],
            "ministries": [#"{"_id":\#(Self.oid(10)),"slug":"destino","name":"Destino","campus":\#(Self.oid(1))}"#],
            "communitygroups": [group],
            "users": [Self.user(20, "Maria", "Gonzalez", #""email":"mg@calpoly.edu","phone":"8055550121""#)],
        ]
        let database = try TestDatabase()
        #expect(try migrate(try dump(collections), into: database).status == 0)
        #expect(try database.connect().query("select code from community_groups").text == "destino-bible-study-tue")
        #expect(try database.connect().query("select key from legacy_ids where collection = 'communitygroups.slug' and object_id = '5a1f3a009c0e4b2d17000014'").text
                == "destino-bible-study-tue")
        // Renamed and moved to Thursday in the old app: the code the first run gave stays.
        var renamed = collections
        renamed["communitygroups"] = [group.replacingOccurrences(of: "Destino Bible Study", with: "Estudio Biblico").replacingOccurrences(of: "Tuesday", with: "Thursday")]
        #expect(try migrate(try dump(renamed), into: database).status == 0)
        #expect(try database.connect().query("select code || ' ' || name from community_groups").texts.map { $0[0] ?? "" } == ["destino-bible-study-tue Estudio Biblico"])
    }

    @Test("a group saved with parentMinistry lands; a meetingTime saved as a date means that time of day in California; midnight UTC is refused")
    func groupsOfOldShapes() throws {
        let folder = try dump([
            "campus": [Self.campus],
            "ministries": [#"{"_id":\#(Self.oid(10)),"slug":"destino","name":"Destino","campus":\#(Self.oid(1))}"#],
            "communitygroups": [
                #"{"_id":\#(Self.oid(12)),"name":"Bible Study","meetingTime":{"$date":"2016-02-03T03:00:00Z"},"parentMinistry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#,
                #"{"_id":\#(Self.oid(13)),"name":"Women","meetingTime":{"$date":"2016-10-03T00:00:00Z"},"dayOfWeek":"Wednesday","ministry":\#(Self.oid(10)),"leaders":[\#(Self.oid(20))]}"#,
            ],
            "users": [Self.user(20, "Maria", "Gonzalez", #""email":"mg@calpoly.edu","phone":"8055550121""#)],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(try database.connect().query("select code || ' ' || meeting_day || ' ' || to_char(meeting_time, 'HH24:MI') from community_groups").texts.map { $0[0] ?? "" }
                == ["destino-bible-study-tue Tuesday 19:00"])
        #expect(result.stderr.contains("communitygroups/5a1f3a009c0e4b2d1700000d:meetingTime: error[refused-document]: meetingTime is a date at midnight UTC"), "\(result.stderr)")
    }

    @Test("a mission located only by its country keeps it; a deleted passenger on a ride is a warning; has_driver without a ride is refused; isMinistryTeamLeader alone makes a leader")
    func smallerShapes() throws {
        let event = #"{"_id":\#(Self.oid(30)),"slug":"retreat","name":"Retreat","startDate":{"$date":"2017-10-14T00:00:00Z"},"endDate":{"$date":"2017-10-15T21:00:00Z"},"rideSharing":true,"ministries":[]}"#
        let pickup = #""location":{"street1":"1 Grand Ave","suburb":"San Luis Obispo"}"#
        let folder = try dump([
            "summermissions": [#"{"_id":\#(Self.oid(60)),"slug":"thailand","name":"Thailand","location":{"country":"Thailand"},"startDate":{"$date":"2017-06-18T00:00:00Z"},"endDate":{"$date":"2017-07-29T00:00:00Z"},"leaders":"Jen Ellison"}"#],
            "events": [event],
            "users": [Self.user(20, "Andrea", "Ortiz", #""email":"ao@cru.org","phone":"8055550103","isMinistryTeamLeader":true"#),
                      Self.user(21, "Emma", "Wilson", #""email":"ew@calpoly.edu","phone":"8055550115""#)],
            "rides": [#"{"_id":\#(Self.oid(40)),"event":\#(Self.oid(30)),"driverName":"Andrea Ortiz","driverNumber":"8055550103","seats":3,"direction":"to","time":{"$date":"2017-10-13T23:00:00Z"},\#(pickup),"passengers":[\#(Self.oid(59))]}"#],
            "passengers": [#"{"_id":\#(Self.oid(50)),"name":"Emma Wilson","phone":"8055550115","direction":"to","event":\#(Self.oid(30)),\#(pickup),"has_driver":true}"#],
        ])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database, ["--on-error", "skip"])
        #expect(try database.connect().query("select location from summer_missions").text == "Thailand")
        #expect(result.stderr.contains("rides/5a1f3a009c0e4b2d17000028:passengers: warning[unknown-reference]: passengers 5a1f3a009c0e4b2d1700003b does not exist (deleted in the old app); left out of the ride"),
                "\(result.stderr)")
        #expect(result.stderr.contains("passengers/5a1f3a009c0e4b2d17000032:has_driver: error[refused-document]: the old app had seated this passenger (has_driver), but no ride lists them"),
                "\(result.stderr)")
        #expect(try database.count("select count(*) from ride_requests") == 0, "not left waiting, where rides pair would seat them again")
        #expect(try database.count("select count(*) from people where email = 'ao@cru.org' and is_leader") == 1)
    }

    @Test("the dump's campus collection is read under Keystone's name, campus, and named so in diagnostics and the reconciliation")
    func campusCollectionName() throws {
        let folder = try dump(["campus": [Self.campus], "posts": [#"{"_id":\#(Self.oid(90)),"title":"Hello"}"#]])
        let database = try TestDatabase()
        let result = try migrate(folder, into: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try database.count("select count(*) from campuses") == 1)
        #expect(result.stderr.contains("campus/5a1f3a009c0e4b2d17000001:timezone: warning[assumed-value]"), "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.contains(["campus", "1", "1", "0", "0"]), "\(result.stdout)")
        #expect(result.stdout.contains("  posts: 1 a collection crubatch has no kind for"), "\(result.stdout)")
        #expect(result.stdout.contains("  posts: * (1)"), "\(result.stdout)")
    }
}
