import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@testable import CruBatch

/// What `forget` erases comes from the kinds' `ColumnSpec.personal`, and every column of a table
/// that holds people's data says whether it is personal; the change log covers every logged table.
@Suite("personal columns and the change log")
struct PersonalColumnsTests {
    private let scratch = ScratchDirectory()

    /// `table.column` for every stored column of the people table and of each table that references
    /// it which `classification` leaves unclassified. Notifications and email aliases are left out:
    /// `forget` deletes the ones about or to the person, and their aliases, whole, so none of their
    /// columns is kept. A reviewer's "not the same person" (`people_not_duplicates`) holds two ids and
    /// who decided: nothing of the person's own.
    private func unclassified(in database: TestDatabase, by classification: PersonalColumns) throws -> [String] {
        let rows = try database.connect().query(
            """
            select c.relname, a.attname from pg_class c
            join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            where c.relname not in ('notifications', 'person_aliases', 'people_not_duplicates') and (c.oid = 'people'::regclass or c.oid in (
                select conrelid from pg_constraint where contype = 'f' and confrelid = 'people'::regclass))
            order by c.relname, a.attnum
            """
        ).texts
        let columns = Dictionary(grouping: rows, by: { $0[0]! }).mapValues { $0.map { $0[1]! } }
        return columns.keys.sorted().flatMap { table in
            classification.unclassified(columns[table]!, in: table).map { "\(table).\($0)" }
        }
    }

    /// The catalog with one more column of students (`nickname`), classified as given.
    private func withNickname(_ personal: Personal?) -> PersonalColumns {
        let nickname = KindSpec(
            kind: .students, table: "people",
            columns: [ColumnSpec("nickname", .text, personal: personal)])
        return PersonalColumns(kinds: PersonalColumns.catalog.kinds + [nickname])
    }

    @Test("every column of people and of the tables that reference a person is declared personal or not")
    func everyColumnClassified() throws {
        let database = try TestDatabase()
        let tables = try unclassified(in: database, by: .catalog)
        #expect(tables == [])
        // A column added by a migration without its declaration is caught; so is one that two kinds
        // sharing the table declare differently.
        try database.connect().execute("alter table people add column nickname text")
        #expect(try unclassified(in: database, by: .catalog) == ["people.nickname"])
        #expect(try unclassified(in: database, by: withNickname(nil)) == ["people.nickname"])
        #expect(try unclassified(in: database, by: withNickname(.cleared)) == [])
        let conflicting = PersonalColumns(kinds: withNickname(.cleared).kinds + withNickname(.no).kinds.suffix(1))
        #expect(try unclassified(in: database, by: conflicting) == ["people.nickname"])
    }

    /// Change images that hold the test-only nickname.
    private static let nicknameImages: PostgresQuery =
        "select count(*) from run_changes where concat(before, after) like '%Nicky%'"

    @Test(
        "forget erases a column of students because a kind marks it personal, in the row and in earlier change images",
        arguments: [(Personal.cleared, nil), (Personal.no, "Nicky")] as [(Personal, String?)])
    func forgetFollowsTheMark(personal: Personal, kept: String?) throws {
        // A test-only column of students, added as a migration would add it: then `migrate` gives the
        // change log's copies of people's rows the column too.
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.execute("alter table people add column nickname text")
        #expect(try database.run(["migrate"]).status == 0)
        let email = "nicky.tran@example.edu"
        let first = try scratch.writeFile("first/students.csv", "email,first_name,last_name\n\(email),Nicole,Tran\n")
        #expect(try database.run(["import", "students", first]).status == 0)
        try connection.query("update people set nickname = 'Nicky' where email = \(email)")
        // A later import writes a change image that holds the nickname.
        let second = try scratch.writeFile("second/students.csv", "email,first_name,last_name\n\(email),Nicola,Tran\n")
        #expect(try database.run(["import", "students", second]).status == 0)
        #expect(try database.count(Self.nicknameImages) == 1)

        let report = try PersonalDataEraser(connection: connection, personalColumns: withNickname(personal))
            .erase(email: email)
        #expect(
            try connection.query("select nickname, first_name from people where id = \(report.personID)").texts
                == [[kept, "Forgotten"]])
        #expect(try database.count(Self.nicknameImages) == (kept == nil ? 0 : 1))
    }

    @Test("forget erases the pickup places of the person's ride requests, in the rows and in earlier change images")
    func forgetErasesPickupPlaces() throws {
        let database = try TestDatabase(importing: "central-coast")
        let email = "mkahananui@calpoly.edu"
        let requests = try scratch.writeFile(
            "ride-requests.csv",
            """
            event,email,direction,pickup_location,latitude,longitude,postal_code,earliest_departure,latest_departure
            fall-retreat-2026,\(email),both,12 Elm Street,35.3,-120.66,93401,2026-10-16T14:00:00,2026-10-16T17:00:00

            """)
        #expect(try database.run(["import", "ride-requests", requests]).status == 0)
        let images: PostgresQuery = "select count(*) from run_changes where concat(before, after) like '%Elm Street%'"
        #expect(try database.count(images) == 1)

        let forget = try database.run(["forget", email])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(
            try database.connect().query(
                """
                select r.pickup_location, r.latitude, r.longitude, r.postal_code, r.status from ride_requests r
                join people p on p.id = r.passenger_id where p.first_name = 'Forgotten'
                """
            ).texts == [["forgotten", nil, nil, nil, "cancelled"]])
        #expect(try database.count(images) == 0)
    }

    /// `table: function` for each change-log trigger function a logged table lacks.
    private func missingChangeLogTriggers(_ connection: PostgresConnection) throws -> [String] {
        let installed = Set(
            try connection.query(
                """
                select c.relname || ': ' || f.proname from pg_trigger t join pg_class c on c.oid = t.tgrelid
                join pg_proc f on f.oid = t.tgfoid where not t.tgisinternal
                """
            ).texts.map { $0[0]! })
        return LoggedTable.dependencyOrder.flatMap { table in
            ["record_run_insert", "record_run_update", "record_run_delete"].map { "\(table): \($0)" }
        }.filter { !installed.contains($0) }
    }

    @Test("every table the change log records has its insert, update and delete triggers in a migrated database")
    func changeLogTriggers() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        #expect(try missingChangeLogTriggers(connection) == [])
        // A logged table without its triggers (as terms were before migration 7) is caught.
        try connection.execute("drop trigger terms_record_run_update on terms")
        #expect(try missingChangeLogTriggers(connection) == ["terms: record_run_update"])
    }
}
