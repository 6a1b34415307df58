import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("codes and time zones: import and migration")
struct CodeRuleTests {
    @Test("import refuses a code that breaks the rule, at its line and column, with a hint", arguments: [
        (String(repeating: "g", count: 300), "out-of-range", "code: 300 characters long; a code has at most 63"),
        ("../../../escaped-group", "type-error", "code: \"../../../escaped-group\" is not a code"),
        ("a..b", "type-error", "code: \"a..b\" is not a code"),
    ])
    func importRefusesCode(code: String, diagnostic: String, message: String) throws {
        let database = try TestDatabase()
        try withScratchDirectory { folder in
            let path = folder + "/groups.csv"
            try writeFile(path, "name,code,ministry,leaders\nSmall group,\(code),cru-calpoly,nnowak@calpoly.edu\n")
            let result = try database.run(["import", "groups", path])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(path):2:2: error[\(diagnostic)]: \(message)"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: a code is 1-63 lower-case letters a-z, digits, '.', '_' or '-', starting with a letter or a digit, without '..'"))
        }
        #expect(try database.count("select count(*) from community_groups") == 0)
    }

    @Test("import refuses zone names that are files of a zoneinfo folder, not tz database names",
          arguments: ["posix/America/Los_Angeles", "posixrules", "localtime", "Factory", "right/UTC", "America/Nowhere"])
    func importRefusesZone(zone: String) throws {
        let database = try TestDatabase()
        try withScratchDirectory { folder in
            let path = folder + "/campuses.csv"
            try writeFile(path, "code,name,timezone\ncalpoly,Cal Poly,\(zone)\n")
            let result = try database.run(["import", "campuses", path])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(path):2:3: error[invalid-choice]: timezone: \"\(zone)\" is not a time zone of the tz database"),
                    "\(result.stderr)")
        }
        #expect(try database.count("select count(*) from campuses") == 0)
    }

    @Test("a posix/ zone gets a suggestion, and a tz name in any case is stored as the tz database spells it")
    func zoneSuggestionAndSpelling() throws {
        let database = try TestDatabase()
        try withScratchDirectory { folder in
            let path = folder + "/campuses.csv"
            try writeFile(path, "code,name,timezone\ncalpoly,Cal Poly,posix/America/Los_Angeles\n")
            #expect(try database.run(["import", "campuses", path]).stderr.contains("did you mean \"America/Los_Angeles\"?"))
            try writeFile(path, "code,name,timezone\ncalpoly,Cal Poly,america/los_angeles\n")
            let result = try database.run(["import", "campuses", path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try database.connect().query("select timezone from campuses").text == "America/Los_Angeles")
    }

    @Test("migration 3 stops, naming each table and id, when rows break the code rule; nothing is changed")
    func migrationRefusesBadCodes() throws {
        let database = try TestDatabase.empty()
        let connection = try database.connect()
        _ = try Migrator(connection: connection, migrations: Array(Migration.all.prefix(2))).migrate()
        // Written as the app or SQL could before the rule: import never would.
        try connection.script("""
            insert into campuses (code, name) values ('calpoly', 'Cal Poly'), ('../../../escaped-campus', 'Escaped');
            insert into ministries (code, name, campus_id) select 'cru-calpoly', 'Cru', id from campuses where code = 'calpoly';
            insert into community_groups (code, ministry_id, name)
                select c, (select id from ministries), 'Group' from unnest(array['fine', '../../../escaped-group', repeat('g', 300)]) c;
            """)
        let campus = try connection.query("select id from campuses where code like '../%'").scalar(Int.self)
        let groups = try connection.query("select string_agg(id::text, ', ' order by id) from community_groups where code <> 'fine'")
            .scalar(String.self)

        let result = try database.run(["migrate"])
        #expect(result.status == 65, "rows to correct, not a bug in crubatch: \(result.stderr)")
        #expect(!result.stderr.contains("bug"))
        #expect(result.stderr.contains("campuses (id \(campus)); community_groups (id \(groups))"), "\(result.stderr)")
        #expect(result.stderr.contains("change these codes, then run crubatch migrate again"))
        #expect(try connection.query("select count(*) from schema_migrations where version = 3").scalar(Int.self) == 0)
        #expect(try connection.query("select count(*) from community_groups where code like '../%'").scalar(Int.self) == 1)
    }

    @Test("with migration 3, every table with a code refuses one that breaks the rule", arguments: [
        "campuses", "ministries", "ministry_teams", "community_groups", "events", "summer_missions",
    ])
    func constraintRefusesBadCode(table: String) throws {
        let database = try LoadedDatabase.get()
        let connection = try database.connect()
        for code in ["../../../escaped-group", String(repeating: "g", count: 64), "a..b", "-a"] {
            let error = #expect(throws: PostgresError.self) {
                try connection.query("update \(identifier: table) set code = \(code) where id = (select min(id) from \(identifier: table))")
            }
            #expect(error?.sqlState == "23514", "\(table) \(code)")
            #expect(error?.message.contains("\(table)_code_rule") == true, "\(error?.message ?? "")")
        }
    }
}
