import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `crubatch forget EMAIL`, checked against a full `pg_dump` of the database.
@Suite("forget")
struct ForgetTests {
    static let pgDump = "/usr/lib/postgresql/15/bin/pg_dump"

    private let scratch = ScratchDirectory()

    /// The whole database (schema and data) as `pg_dump` writes it.
    private func dump(_ database: TestDatabase) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.pgDump)
        process.arguments = ["--dbname", database.url, "--no-owner"]
        let output = try scratch.folder() + "/dump.sql"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pg_dump failed")
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test("forget leaves no trace of the email or the phone in any table, earlier change images included")
    func forgetLeavesNoTrace() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        // A student with memberships, notifications about them, and a phone no one else has.
        let person = try connection.query("""
            select p.id, p.email, p.phone from people p
            where not p.is_leader and p.phone is not null
            and exists (select 1 from memberships m join notifications n on n.membership_id = m.id where m.person_id = p.id)
            and (select count(*) from people q where q.phone = p.phone) = 1
            order by p.email limit 1
            """).texts[0]
        let (id, email, phone) = (person[0]!, person[1]!, person[2]!)
        // A later run updates them, so two runs hold images of their data.
        let rename = try scratch.writeFile("students.csv", "email,first_name,last_name\n\(email.uppercased()),Renamed,Student\n")
        #expect(try database.run(["import", "students", rename]).status == 0)
        let digits = String(phone.dropFirst())
        let before = try dump(database)
        #expect(before.lowercased().contains(email) && before.contains(digits), "the dump must show the data before forget")

        let forget = try database.run(["forget", email.uppercased()])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(forget.stdout.contains("forgot person \(id)"))

        let after = try dump(database)
        #expect(!after.lowercased().contains(email), "the email is still in the database")
        #expect(!after.contains(digits), "the phone is still in the database")
        #expect(try connection.query("select email, first_name, last_name, phone, forgotten_at is not null from people where id = \(id)::bigint")
            .texts == [["forgotten-\(id)@invalid", "Forgotten", "Person", nil, "t"]])
        #expect(try database.count("select count(*) from memberships where person_id = \(id)::bigint and status <> 'left'") == 0)
        #expect(try database.count("select count(*) from memberships where person_id = \(id)::bigint") > 0)
        #expect(try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id where m.person_id = \(id)::bigint
            """) == 0)
        // Who asked and when, without the data.
        let record = try connection.query("""
            select r.kind, r.os_user, c.operation, c.before is null, c.after->>'requested_by', c.changed_at is not null
            from run_changes c join import_runs r on r.id = c.run_id where c.row_id = \(id)::bigint and c.operation = 'forget'
            """).texts
        #expect(record == [["forget", NSUserName(), "forget", "t", NSUserName(), "t"]])
        #expect(!(try database.run(["export", "students"]).stdout.contains("forgotten-")))
        #expect(try database.run(["forget", email]).status == 1)
    }
}
