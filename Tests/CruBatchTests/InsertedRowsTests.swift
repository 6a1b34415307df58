@testable import CruBatch
import CruBatchTestSupport
import PostgresClient
import Testing

/// The rows a run inserts, kept as rows of a copy of their table and read back as images through
/// `run_changes`.
@Suite("change log: inserted rows")
struct InsertedRowsTests {
    private let scratch = ScratchDirectory()

    private func write(_ text: String) throws -> String {
        try scratch.writeFile("students.csv", text)
    }

    /// Every change the log holds, as text, in order.
    private static let log: PostgresQuery = """
        select id::text, run_id::text, table_name, row_id::text, operation, before::text, after::text
        from run_changes order by id
        """

    /// A run that inserts a campus and a ministry for each code and renames the first campus, as a
    /// writer would; returns its id.
    private func insertingRun(on connection: PostgresConnection, codes: [String]) throws -> Int {
        let run = WriterRun(connection: connection, kind: .import(.campuses), file: "campuses.csv",
                            locks: .imports([.campuses], wait: false))
        return try run.perform { _ in
            for code in codes {
                try connection.query("insert into campuses (code, name) values (\(code), \(code.uppercased()))")
            }
            try connection.query("""
                insert into ministries (code, name, campus_id) select 'cru-' || code, 'Cru', id from campuses where code = any(\(codes))
                """)
            try connection.query("update campuses set name = 'Renamed' where code = \(codes[0])")
        } then: { ids in
            try run.log.finish(ids[0], status: .succeeded)
        }.ids[0]
    }

    @Test("insert images written before the change become rows of their tables and read back the same; undo still takes the run back")
    func migratedImages() throws {
        let database = try TestDatabase.empty()
        let connection = try database.connect()
        _ = try Migrator(connection: connection, migrations: Migration.all.filter { $0.version < 25 }).migrate()
        let run = try insertingRun(on: connection, codes: ["calpoly", "cuesta"])
        let before = try connection.query(Self.log).texts
        #expect(before.filter { $0[4] == "insert" }.count == 4, "\(before)")

        #expect(try database.run(["migrate"]).status == 0)
        #expect(try connection.query(Self.log).texts == before)
        #expect(try database.count("select count(*) from run_images where operation = 'insert'") == 0)
        #expect(try database.count("select count(*) from run_inserted_campuses") == 2)

        let shown = try database.run(["runs", "show", String(run)])
        #expect(shown.stdout.contains("campuses"), "\(shown.stdout)")
        let undo = try database.run(["undo", String(run)])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try database.count("select count(*) from campuses") == 0)
        #expect(try database.count("select count(*) from ministries") == 0)
    }

    @Test("a column added outside a migration: writers go on inserting what the copy holds, and the next migrate copies it too")
    func columnAddedOutsideMigrations() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.execute("alter table campuses add column motto text default 'Go'")
        let first = try insertingRun(on: connection, codes: ["calpoly"])
        #expect(try database.count("""
            select count(*) from run_changes where run_id = \(first) and operation = 'insert' and after ? 'motto'
            """) == 0)

        #expect(try database.run(["migrate"]).status == 0)
        #expect(try columns(of: "campuses", on: connection).last == ["motto", "text"])
        let second = try insertingRun(on: connection, codes: ["cuesta"])
        #expect(try connection.query("""
            select after->>'motto' from run_changes where run_id = \(second) and table_name = 'campuses' and operation = 'insert'
            """).texts == [["Go"]])
        try connection.execute("update campuses set motto = 'Changed' where code = 'cuesta'")
        let refused = try database.run(["undo", String(second)])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("changed after the run: motto"), "\(refused.stdout)")
        #expect(try database.run(["undo", String(second), "--force"]).status == 0)
        #expect(try database.count("select count(*) from campuses where code = 'cuesta'") == 0)
    }

    /// The columns of a table with their types, or of its copy of inserted rows after the copy's
    /// three of the log's own.
    private func columns(of table: String, copy: Bool = true, on connection: PostgresConnection) throws -> [[String?]] {
        try connection.query("""
            select attname, format_type(atttypid, atttypmod) from pg_attribute
            where attrelid = \(copy ? LoggedTable.insertedCopy(of: table) : table)::regclass
            and attnum > \(copy ? 3 : 0) and not attisdropped order by attnum
            """).texts
    }

    @Test("a later migration that adds, drops and retypes columns of logged tables changes their copies the same way; runs, undo and forget go on")
    func copiesFollowMigrations() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        let before = try insertingRun(on: connection, codes: ["calpoly"])
        let person = "pat.lee@example.edu"
        #expect(try database.run(["import", "students", try write("email,first_name,last_name\n\(person),Pat,Lee\n")]).status == 0)
        let later = Migration(version: 900, name: "test: columns of logged tables change", sql: """
            alter table campuses add column motto text, drop column map_url, alter column city type varchar(80);
            alter table people add column pronouns text;
            """)
        _ = try Migrator(connection: connection, migrations: Migration.all + [later]).migrate()

        #expect(try columns(of: "campuses", on: connection) == columns(of: "campuses", copy: false, on: connection))
        #expect(try columns(of: "people", on: connection).last == ["pronouns", "text"])
        #expect(try database.count("""
            select count(*) from run_changes where run_id = \(before) and operation = 'insert' and after ? 'map_url'
            """) == 0)

        let after = try insertingRun(on: connection, codes: ["cuesta"])
        #expect(try connection.query("""
            select after->>'code', after ? 'motto', after ? 'map_url' from run_changes
            where run_id = \(after) and table_name = 'campuses' and operation = 'insert'
            """).texts == [["cuesta", "t", "f"]])
        let undo = try database.run(["undo", String(after)])
        #expect(undo.status == 0, "\(undo.stdout)\(undo.stderr)")
        #expect(try database.count("select count(*) from campuses where code = 'cuesta'") == 0)

        // A personal column a later migration adds, erased in the copy of a row inserted before it.
        let pronouns = KindSpec(kind: .students, table: "people", columns: [ColumnSpec("pronouns", .text, personal: .cleared)])
        let eraser = PersonalDataEraser(connection: connection,
                                        personalColumns: PersonalColumns(kinds: PersonalColumns.catalog.kinds + [pronouns]))
        let report = try eraser.erase(email: person)
        #expect(report.imagesScrubbed >= 1)
        #expect(try database.count("select count(*) from run_changes where after::text like '%Pat%'") == 0)
    }

    @Test("every table the log records inserts of has its copy, and run_changes reads every copy")
    func everyLoggedTableCopied() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        let logged = try connection.query("""
            select distinct c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid
            join pg_proc p on p.oid = t.tgfoid where p.proname = 'record_run_insert' order by 1
            """).texts.map { $0[0]! }
        #expect(logged.count >= 20)
        #expect(Set(logged) == Set(LoggedTable.dependencyOrder))
        let view = try #require(try connection.query("select pg_get_viewdef('run_changes')").text)
        for table in logged {
            let copy = LoggedTable.insertedCopy(of: table)
            #expect(try connection.query("select to_regclass(\(copy))::text").text == copy)
            #expect(view.contains(copy), "\(table)")
        }
    }
}
