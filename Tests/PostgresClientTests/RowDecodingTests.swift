import CruBatchTestSupport
import PostgresClient
import Testing

/// A read model over two columns, as a person's contact is in crubatch.
private struct Pair: PostgresRowDecodable, Equatable {
    let name: String
    let note: String?

    init(name: String, note: String?) {
        self.name = name
        self.note = note
    }

    init(cells: inout PostgresCells) throws(PostgresError) {
        name = try cells.next(String.self)
        note = try cells.next(String?.self)
    }
}

@Suite("PostgresRow decodes a whole row into a tuple")
struct RowDecodingTests {
    @Test("a row decodes into a tuple of its column types, NULL into an optional")
    func tuple() throws {
        let db = try TestDatabase.connect()
        let row = try db.query("select 7 as id, 'Zoë' as name, null::text as note, true as ok, 2.5 as x").rows[0]
        let (id, name, note, ok, x) = try row.decode((Int, String, String?, Bool, Double).self)
        #expect(id == 7 && name == "Zoë" && note == nil && ok && x == 2.5)
        #expect(try db.query("select 41 + 1").rows[0].decode(Int.self) == 42)
    }

    @Test("a read model takes its columns in the middle of a tuple")
    func readModel() throws {
        let db = try TestDatabase.connect()
        let row = try db.query("select 1, 'Ann', null::text, 'Bob', 'hi', 2").rows[0]
        let (first, ann, bob, last) = try row.decode((Int, Pair, Pair, Int).self)
        #expect(first == 1 && last == 2)
        #expect(ann == Pair(name: "Ann", note: nil))
        #expect(bob == Pair(name: "Bob", note: "hi"))
    }

    @Test("a NULL or a text of another type is a decoding error naming the column and the query")
    func mismatch() throws {
        let db = try TestDatabase.connect()
        let row = try db.query("select 1 as id, null::text as name, 'abc' as count").rows[0]
        let null = try postgresError { _ = try row.decode((Int, String, String).self) }
        #expect(null.kind == .decoding)
        #expect(null.message == """
            column "name" is NULL, expected String in the result of: select 1 as id, null::text as name, 'abc' as count
            """)
        let type = try postgresError { _ = try row.decode((Int, String?, Int).self) }
        #expect(type.kind == .decoding)
        #expect(type.message.hasPrefix("column \"count\" is not Int in the result of: select 1 as id"))
        let inModel = try postgresError { _ = try row.decode((Int, String?, Pair).self) }
        #expect(inModel.message.hasPrefix("column #4 does not exist in the result of: select 1 as id"))
    }

    @Test("a row with more columns than the tuple reads is a decoding error")
    func extraColumns() throws {
        let db = try TestDatabase.connect()
        let row = try db.query("select 1, 'a', 'b'").rows[0]
        let error = try postgresError { _ = try row.decode((Int, String).self) }
        #expect(error.kind == .decoding)
        #expect(error.message == "the result has 3 columns, not the 2 the Swift reads, in: select 1, 'a', 'b'")
    }
}
