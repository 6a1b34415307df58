@testable import CruBatch
import CruBatchTestSupport
import PostgresClient
import Testing

/// The schema of a run's own that holds its stage and the merge's tables (`WorkSchema`).
@Suite("work schema")
struct WorkSchemaTests {
    private let scratch = ScratchDirectory()

    /// The work schemas the database holds, as others see them.
    private static let workSchemas: PostgresQuery = "select count(*) from pg_namespace where nspname like 'crubatch\\_work\\_%'"

    @Test("each session's work tables are unlogged tables of its own schema, found before any other, and gone once it ends")
    func ownSchemaPerSession() throws {
        let database = try TestDatabase()
        let first = try database.connect(), second = try database.connect()
        try first.execute("begin")
        try second.execute("begin")
        let one = try WorkSchema.create(on: first), two = try WorkSchema.create(on: second)
        #expect(one.name != two.name)
        for connection in [first, second] {
            try connection.execute("create unlogged table stage (line integer not null)")
            try connection.execute("create unlogged table people (line integer)")
        }
        #expect(try first.query("""
            select n.nspname::text, c.relpersistence::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where c.oid = 'stage'::regclass
            """).texts == [[one.name, "u"]])
        // Its tables come first, then the database's own as before.
        #expect(try first.query("select count(*) from people").scalar(Int.self) == 0)
        #expect(try first.query("select to_regclass('campuses')::text").text == "campuses")
        try one.drop()
        try first.execute("commit")
        try second.execute("rollback")
        #expect(try database.count(Self.workSchemas) == 0)
        #expect(try first.query("select to_regclass('stage')::text").text == nil)
    }

    @Test("a database user who may not create schemas is told the grant to ask for (exit 78), and the import writes nothing")
    func withoutTheRightToCreateSchemas() throws {
        let database = try TestDatabase(importing: "central-coast")
        let admin = try database.connect()
        let role = "crubatch_test_no_create_\(UInt32.random(in: 0...UInt32.max))"
        try admin.execute("create role \(identifier: role) login")
        defer {
            try? admin.execute("drop owned by \(identifier: role)")
            try? admin.execute("drop role \(identifier: role)")
        }
        try admin.execute("grant select, insert, update, delete on all tables in schema public to \(identifier: role)")
        try admin.execute("grant usage, select, update on all sequences in schema public to \(identifier: role)")
        let people = try database.count("select count(*) from people")
        let file = try scratch.writeFile("students.csv", "email,first_name,last_name,campus\nnew.one@example.edu,New,One,calpoly\n")
        let url = database.url.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://\(role)@")
        #expect(url != database.url)
        let result = try database.run(["import", "students", file], environment: ["DATABASE_URL": url])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("may not create schemas"), "\(result.stderr)")
        #expect(result.stderr.contains("grant create on database"), "\(result.stderr)")
        #expect(try database.count("select count(*) from people") == people)
        #expect(try database.count(Self.workSchemas) == 0)
    }

    @Test("imports and place leave no work schema, whether they load, reject rows, cannot read the file, or run dry")
    func nothingLeft() throws {
        let database = try TestDatabase(importing: "central-coast")
        let good = try scratch.writeFile("good/students.csv", "email,first_name,last_name,campus\nnew.one@example.edu,New,One,calpoly\n")
        let bad = try scratch.writeFile("bad/students.csv", "email,first_name,last_name,campus\nnot-an-email,New,One,calpoly\n")
        #expect(try database.run(["import", "students", good]).status == 0)
        #expect(try database.count("select count(*) from people where email = 'new.one@example.edu'") == 1)
        let broken = try scratch.writeFile("broken/students.csv", "email,first_name,last_name\n\"unclosed@example.edu,New,One\n")
        #expect(try database.run(["import", "students", bad]).status == 1)
        #expect(try database.run(["import", "students", broken]).status == 65)
        #expect(try database.run(["import", "students", good, "--dry-run"]).status == 0)
        #expect(try database.run(["validate", "students", bad]).status == 1)
        #expect(try database.run(["validate", "students", broken]).status == 65)
        // As spreadsheet programs write them: Excel's CSV in Windows-1252, refused mid-read, then
        // read with its encoding; a damaged workbook.
        let excel = TestEnvironment.fixture("excel/windows-1252/students.csv")
        #expect(try database.run(["import", "students", excel]).status == 65)
        #expect(try database.run(["import", "students", excel, "--encoding", "windows-1252"]).status == 0)
        #expect(try database.run(["import", "students", TestEnvironment.fixture("invalid/malformed-workbook/students.xlsx")]).status == 65)
        #expect(try database.run(["place", TestEnvironment.fixture("get-involved/answers-small.csv")]).status <= 1)
        #expect(try database.count("select count(*) from import_runs where kind = 'place' and status = 'succeeded'") == 1)
        #expect(try database.count(Self.workSchemas) == 0)
    }
}
