import CruBatchTestSupport
import PostgresClient
import Testing

@Suite("execute, script and SQL fragments")
struct StatementTests {
    @Test("execute runs one statement with its values as parameters; several statements need script")
    func executeAndScript() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("we\"ird name")
        try db.execute("create temp table \(identifier: table) (n int, note text)")
        try db.execute("insert into \(identifier: table) values (\(1), \("'); drop table x; --"))")
        #expect(throws: PostgresError.self) {
            try db.execute("insert into \(identifier: table) values (2, 'a'); select 1")
        }
        let name = SQLFragment(identifier: table)
        try db.script("insert into \(name) values (2, 'a'); insert into \(name) values (3, 'b')")
        let rows = try db.query("select string_agg(n || ':' || note, ',' order by n) from \(identifier: table)")
        #expect(rows.text == "1:'); drop table x; --,2:a,3:b")
    }

    @Test("a fragment is literal text, quoted names, integers and other fragments, spliced as text")
    func fragments() {
        let alias: SQLFragment = "t"
        let current: SQLFragment = "\(alias).\(identifier: "ended \"at\"") is null and \(alias).n < \(3)"
        #expect(current.sql == #"t."ended ""at""" is null and t.n < 3"#)
        #expect(SQLFragment(joining: [current, "true"], separator: " and ").sql == current.sql + " and true")
        let query: PostgresQuery = "select n from x \(unescaped: alias) where \(unescaped: current) and y = \("z")"
        #expect(query.sql == #"select n from x t where t."ended ""at""" is null and t.n < 3 and y = $1"#)
        #expect(query.binds == ["z"])
    }

    @Test("a name is quoted only where PostgreSQL needs it, as quote_ident does, and reads back as itself")
    func identifiers() throws {
        let db = try TestDatabase.connect()
        for name in ["people", "first_name", "_x1", "group", "order", "Name", "1st", "we ird", #"a"b"#, "état", ""] {
            #expect(try db.query("select quote_ident(\(name))").text == SQLFragment(identifier: name).sql, "\(name)")
        }
        let table = uniqueName("group")
        try db.execute("create temp table \(identifier: table) (\(identifier: "group") int, \(identifier: "Name") text)")
        try db.execute("insert into \(identifier: table) values (1, 'x')")
        #expect(try db.query("select \(identifier: "Name") from \(identifier: table) where \(identifier: "group") = 1").text == "x")
    }

    @Test("a literal fragment reads back as its text, quotes and backslashes included")
    func literals() throws {
        let db = try TestDatabase.connect()
        for text in ["left", "it's", #"C:\new\'x'"#, ""] {
            #expect(try db.query("select \(unescaped: SQLFragment(literal: text))").text == text)
        }
        #expect(SQLFragment(literal: "it's").sql == "'it''s'")
    }
}
