import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("migrate and status")
struct MigrateTests {
    @Test("migrate applies every migration once; the second run changes nothing")
    func migrateTwice() throws {
        let database = try TestDatabase.empty()

        let first = try database.run(["migrate"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("applied 1: data model"))
        let connection = try database.connect()
        let tables = try connection.query("select count(*) from pg_tables where schemaname = 'public'").text
        let migrations = try connection.query("select count(*) from schema_migrations").text

        let second = try database.run(["migrate"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("up to date"))
        #expect(try connection.query("select count(*) from pg_tables where schemaname = 'public'").text == tables)
        #expect(try connection.query("select count(*) from schema_migrations").text == migrations)
        #expect(migrations == String(Migration.all.count))

        let status = try database.run(["migrate", "--status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("0001  data model"))
        #expect(status.stdout.contains("applied"))
    }

    @Test("a migration changed after it was applied is refused")
    func changedMigrationRefused() throws {
        let database = try TestDatabase()
        try database.connect().query("update schema_migrations set checksum = 'tampered' where version = 1")
        let result = try database.run(["migrate"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("migration 1 (data model) was changed"))
    }

    /// The phone check lost its bounded repeat for speed; what it accepts must not change. The
    /// check the schema holds now, against the pattern of the first migration, over the numbers
    /// crubatch writes and the ones at each edge of the pattern.
    @Test("the phone check accepts exactly what the first migration's pattern did")
    func phoneCheckUnchanged() throws {
        let connection = try LoadedDatabase.get().connect()
        let definition = try #require(try connection.query("""
            select pg_get_constraintdef(oid) from pg_constraint where conname = 'people_phone_check'
            """).text)
        #expect(!definition.contains("{6,14}"))
        // The check as the schema holds it, run on one value.
        try connection.execute("""
            create function pg_temp.phone_passes(value text) returns boolean language plpgsql as $$
            declare passes boolean;
            begin
                execute (select 'select ' || substr(pg_get_constraintdef(oid), length('CHECK ') + 1) || ' from (select $1 as phone) t'
                         from pg_constraint where conname = 'people_phone_check') into passes using value;
                return passes;
            end $$
            """)
        let digits = "123456789012345678"
        var phones = (5...18).flatMap { count in
            let main = "+" + digits.prefix(count)
            return [main, main + ";ext=7", main + ";ext=", main + ";ext=12;ext=3", main + ";", main + ";x=1", main + "x"]
        }
        phones += ["+0123456789", "+1055501234", "18055550134", "+1 8055550134", "+18055550134\n", "+1805555013a",
                   "+１８０５５５５０１３４", "+18055550134;EXT=1", "+18055550134;ext=1 ", ";ext=12", "+", "", "+;ext=1",
                   "+18055550134;ext=٣"]
        let rows = try connection.query("""
            select phone, phone ~ '^\\+[1-9][0-9]{6,14}(;ext=[0-9]+)?$', pg_temp.phone_passes(phone)
            from unnest(\(phones)::text[]) as t(phone)
            """).rows
        #expect(rows.count == phones.count)
        var accepted = 0
        for row in rows {
            let (phone, before, now) = try row.decode((String, Bool, Bool).self)
            #expect(before == now, "\(phone)")
            if now { accepted += 1 }
        }
        #expect(accepted == 19, "7 to 15 digits, with and without an extension, and +1055501234")
    }

    @Test("status counts rows per table")
    func statusCounts() throws {
        let database = try LoadedDatabase.get()
        let result = try database.run(["status"])
        #expect(result.status == 0)
        let campuses = try database.count("select count(*) from campuses")
        #expect(result.stdout.contains("campuses" + String(repeating: " ", count: 24 - 8 - String(campuses).count) + String(campuses)))
        #expect(result.stdout.contains("notifications:"))
    }

    @Test("an unreachable database exits 69 naming host and port, never the password")
    func unreachableDatabase() throws {
        let result = try CommandResult.run(["status", "--database-url", "postgresql://bob:s3cret@127.0.0.1:1/cru"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("127.0.0.1"))
        #expect(result.stderr.contains("port 1") || result.stderr.contains(":1"))
        #expect(!result.stderr.contains("s3cret"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a database without the schema asks for migrate")
    func schemaMissing() throws {
        let result = try TestDatabase.empty().run(["status"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("crubatch migrate"))
    }

    @Test("--help teaches, --version answers, completions generate")
    func helpVersionCompletions() throws {
        let help = try CommandResult.run(["--help"])
        #expect(help.status == 0)
        for command in ["migrate", "import", "validate", "export", "status"] { #expect(help.stdout.contains(command)) }
        #expect(help.stdout.contains("Exit codes"))
        let version = try CommandResult.run(["--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == CruBatchVersion.current)
        let bash = try CommandResult.run(["--generate-completion-script", "bash"])
        #expect(bash.status == 0)
        #expect(bash.stdout.contains("complete"))
        let zsh = try CommandResult.run(["--generate-completion-script", "zsh"])
        #expect(zsh.stdout.contains("#compdef"))
        let usage = try CommandResult.run(["import", "nonsense", "x.csv"])
        #expect(usage.status == 64)
    }
}
