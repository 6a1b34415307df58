@testable import CruBatch
import CruBatchTestSupport
import PostgresClient
import Testing

/// The rows a run inserts or updates, kept as rows of copies of their table and read back as images
/// through `run_changes`.
@Suite("change log: inserted and updated rows")
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

    @Test("update images written before the change read back the same; later updates are rows, read back before and after with their operation, and undo takes them back")
    func updatedRowsAsRows() throws {
        let database = try TestDatabase.empty()
        let connection = try database.connect()
        _ = try Migrator(connection: connection, migrations: Migration.all.filter { $0.version < 36 }).migrate()
        let first = try insertingRun(on: connection, codes: ["calpoly"])
        let before = try connection.query(Self.log).texts
        #expect(before.filter { $0[4] == "update" }.count == 1, "\(before)")

        #expect(try database.run(["migrate"]).status == 0)
        #expect(try connection.query(Self.log).texts == before)
        #expect(try database.count("select count(*) from run_images where operation = 'update'") == 1)

        let run = WriterRun(connection: connection, kind: .import(.campuses), file: "campuses.csv",
                            locks: .imports([.campuses], wait: false))
        let second = try run.perform { _ in
            try connection.query("update campuses set name = 'Cal Poly SLO', city = 'San Luis Obispo' where code = 'calpoly'")
            try connection.query("update campuses set archived_at = '2026-12-01 08:00:00+00' where code = 'calpoly'")
        } then: { ids in
            try run.log.finish(ids[0], status: .succeeded)
        }.ids[0]
        #expect(try database.count("select count(*) from run_images where run_id = \(second)") == 0)
        #expect(try connection.query("""
            select change_after::text, name, city, archived_at is not null from run_updated_campuses order by change_id, change_after
            """).texts == [["false", "Renamed", nil, "f"], ["true", "Cal Poly SLO", "San Luis Obispo", "f"],
                           ["false", "Cal Poly SLO", "San Luis Obispo", "f"], ["true", "Cal Poly SLO", "San Luis Obispo", "t"]])
        try connection.execute("set time zone 'UTC'")
        let id = try connection.query("select id::text from campuses where code = 'calpoly'").text
        #expect(try connection.query("""
            select table_name, row_id::text, operation, before->>'name', after->>'name', after->>'city', after->>'archived_at'
            from run_changes where run_id = \(second) order by id
            """).texts == [["campuses", id, "update", "Renamed", "Cal Poly SLO", "San Luis Obispo", nil],
                           ["campuses", id, "archive", "Cal Poly SLO", "Cal Poly SLO", "San Luis Obispo", "2026-12-01T08:00:00+00:00"]])
        // Each image holds every column of the table, as the trigger's images did.
        #expect(try connection.query("""
            select count(*) from run_changes c, campuses t
            where c.run_id = \(second) and (select array_agg(k order by k) from jsonb_object_keys(c.after) k)
                = (select array_agg(k order by k) from jsonb_object_keys(to_jsonb(t)) k)
            """).scalar(Int.self) == 2)
        let shown = try database.run(["runs", "show", String(second)])
        #expect(shown.stdout.contains("campuses"), "\(shown.stdout)")

        #expect(try database.run(["undo", String(second)]).status == 0)
        #expect(try connection.query("select name, city, archived_at is null from campuses where code = 'calpoly'").texts
            == [["Renamed", nil, "t"]])
        #expect(try database.run(["undo", String(first)]).status == 0)
        #expect(try database.count("select count(*) from campuses") == 0)
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
        for copy in copies(of: "campuses") {
            #expect(try columns(of: "campuses", copy: copy, on: connection).last == ["motto", "text"], "\(copy)")
        }
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

    /// The columns of a table with their types, or of one of its copies (`LoggedTable.copies`) after
    /// the copy's columns of the log's own.
    private func columns(of table: String, copy: String? = nil, on connection: PostgresConnection) throws -> [[String?]] {
        let after: SQLFragment = copy.map { "run_copy_meta_columns(\(literal: table), \(literal: $0))" } ?? "0"
        return try connection.query("""
            select attname, format_type(atttypid, atttypmod) from pg_attribute
            where attrelid = \(copy ?? table)::regclass and attnum > \(unescaped: after) and not attisdropped order by attnum
            """).texts
    }

    /// Each copy of `table`'s rows: as inserted, as updated.
    private func copies(of table: String) -> [String] {
        LoggedTable.copies(of: table)
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

        for copy in copies(of: "campuses") + copies(of: "people") {
            let table = copy.hasSuffix("people") ? "people" : "campuses"
            #expect(try columns(of: table, copy: copy, on: connection) == columns(of: table, on: connection), "\(copy)")
        }
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

    @Test("every table the log records inserts of has its copies, and run_changes reads every copy")
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
            for copy in copies(of: table) {
                #expect(try connection.query("select to_regclass(\(copy))::text").text == copy)
                #expect(view.contains(copy), "\(table)")
            }
        }
    }
}
