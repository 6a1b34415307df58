@testable import CruBatch
import CruBatchTestSupport
import PostgresClient
import Testing

/// The rows a run inserts, kept as rows of a copy of their table and read back as images through
/// `run_changes`.
@Suite("change log: inserted rows")
struct InsertedRowsTests {
    /// Every change the log holds, as text, in order.
    private static let log: PostgresQuery = """
        select id::text, run_id::text, table_name, row_id::text, operation, before::text, after::text
        from run_changes order by id
        """

    /// A run that inserts two campuses and a ministry and updates one of the campuses, as a writer
    /// would; returns its id.
    private func insertingRun(on connection: PostgresConnection, codes: [String]) throws -> Int {
        let run = WriterRun(connection: connection, kind: .import(.campuses), file: "campuses.csv",
                            locks: .imports([.campuses], wait: false))
        return try run.perform { _ in
            for code in codes {
                try connection.query("insert into campuses (code, name) values (\(code), \(code.uppercased()))")
            }
            try connection.query("insert into ministries (code, name, campus_id) select 'cru-' || code, 'Cru', id from campuses")
            try connection.query("update campuses set name = 'Renamed' where code = \(codes[0])")
        } then: { ids in
            try run.log.finish(ids[0], status: "succeeded")
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

    @Test("a column added to a logged table later is copied too: its inserted rows' images hold it, and undo compares it")
    func columnAddedLater() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.execute("alter table campuses add column motto text default 'Go'")
        let run = try insertingRun(on: connection, codes: ["calpoly"])
        #expect(try connection.query("""
            select after->>'motto' from run_changes where run_id = \(run) and table_name = 'campuses' and operation = 'insert'
            """).texts == [["Go"]])

        try connection.execute("update campuses set motto = 'Changed'")
        let refused = try database.run(["undo", String(run)])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("changed after the run: motto"), "\(refused.stdout)")
        #expect(try database.count("select count(*) from campuses") == 1)
        #expect(try database.run(["undo", String(run), "--force"]).status == 0)
        #expect(try database.count("select count(*) from campuses") == 0)
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
            #expect(try connection.query("select to_regclass(\("run_inserted_" + table))::text").text == "run_inserted_" + table)
            #expect(view.contains("run_inserted_" + table), "\(table)")
        }
    }
}
