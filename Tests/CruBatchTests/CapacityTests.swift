import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("group capacity")
struct CapacityTests {
    private let scratch = ScratchDirectory()

    /// central-coast with cp-small-tue (capacity 3, Tue 19:00, mixed) holding two members, and
    /// `students` new students on Cal Poly who are in no group: their emails.
    private func databaseWithOneSeatLeft(students: Int) throws -> (TestDatabase, [String]) {
        let database = try TestDatabase(importing: "central-coast")
        let emails = (1...students).map { "seat.seeker\($0)@example.edu" }
        try database.connect().query("""
            insert into people (email, first_name, last_name, sex, school_year, campus_id)
            select e, 'Seat', 'Seeker', 'female', 3, (select id from campuses where code = 'calpoly')
            from unnest(\(emails)::text[]) e;
            """)
        try database.connect().execute("""
            insert into memberships (group_id, person_id)
            select g.id, p.id from community_groups g,
                (select id from people where not is_leader and email not like 'seat.seeker%' order by id limit 2) p
            where g.code = 'cp-small-tue'
            """)
        return (database, emails)
    }

    private func members(_ database: TestDatabase) throws -> Int {
        try database.count("""
            select count(*) from memberships m join community_groups g on g.id = m.group_id
            where g.code = 'cp-small-tue'
            """)
    }

    @Test("a join to a full group by plain SQL fails with SQLSTATE CB001 naming the group")
    func plainSQLRefused() throws {
        let (database, emails) = try databaseWithOneSeatLeft(students: 2)
        let connection = try database.connect()
        func join(_ email: String) throws {
            try connection.query("""
                insert into memberships (group_id, person_id)
                select g.id, p.id from community_groups g, people p where g.code = 'cp-small-tue' and p.email = \(email)
                """)
        }
        try join(emails[0])
        let error = try #require(throws: PostgresError.self) { try join(emails[1]) }
        #expect(error.sqlState == "CB001")
        #expect(error.message.contains("\"cp-small-tue\" is full: capacity 3, 3 members"), "\(error.message)")

        // Moving a membership into the full group is refused the same way.
        let move = try #require(throws: PostgresError.self) {
            try connection.query("""
                update memberships set group_id = (select id from community_groups where code = 'cp-small-tue')
                where id = (select m.id from memberships m join community_groups g on g.id = m.group_id
                            where g.code <> 'cp-small-tue' order by m.id limit 1)
                """)
        }
        #expect(move.sqlState == "CB001")
        #expect(try members(database) == 3)

        // A member joining again takes no second seat: the insert conflicts and does nothing.
        try connection.query("""
            insert into memberships (group_id, person_id)
            select g.id, p.id from community_groups g, people p where g.code = 'cp-small-tue' and p.email = \(emails[0])
            on conflict (group_id, person_id) do nothing
            """)
        #expect(try members(database) == 3)
    }

    @Test("one statement bringing two students into the last seat fails whole; rewriting a member's status as it is takes no seat")
    func checkedPerStatement() throws {
        let (database, emails) = try databaseWithOneSeatLeft(students: 2)
        let connection = try database.connect()
        let both = try #require(throws: PostgresError.self) {
            try connection.query("""
                insert into memberships (group_id, person_id)
                select g.id, p.id from community_groups g, people p
                where g.code = 'cp-small-tue' and p.email = any(\(emails)::text[])
                """)
        }
        #expect(both.sqlState == "CB001")
        // The members it found before the statement, as a join of one student says.
        #expect(both.message.contains("\"cp-small-tue\" is full: capacity 3, 2 members"), "\(both.message)")
        #expect(try members(database) == 2)

        // Staff lowered the capacity below the members; a statement that leaves everyone where they are passes.
        try connection.execute("update community_groups set capacity = 1 where code = 'cp-small-tue'")
        let rewritten = try connection.query("""
            update memberships m set status = m.status from community_groups g
            where g.id = m.group_id and g.code = 'cp-small-tue'
            """).affectedRows
        #expect(rewritten == 2)
        // Coming back after leaving is joining anew, and is refused.
        try connection.execute("""
            update memberships m set status = 'left' from community_groups g
            where g.id = m.group_id and g.code = 'cp-small-tue' and m.id = (select min(id) from memberships where group_id = g.id)
            """)
        let back = try #require(throws: PostgresError.self) {
            try connection.query("""
                update memberships m set status = 'active' from community_groups g
                where g.id = m.group_id and g.code = 'cp-small-tue' and m.status = 'left'
                """)
        }
        #expect(back.sqlState == "CB001")
        #expect(back.message.contains("\"cp-small-tue\" is full: capacity 1, 1 members"), "\(back.message)")
    }

    /// Six sessions each check the count, as an app would, then join and hold their transaction open
    /// for a moment: without the database's own check all six would see a free seat.
    @Test("six sessions joining the last seat at once: exactly one gets it, the others get CB001")
    func concurrentSessions() throws {
        let (database, emails) = try databaseWithOneSeatLeft(students: 6)
        let url = database.url
        let results = Outcomes.race(emails) { try Self.joinAfterChecking($0, url: url) }
        #expect(results.count == 6)
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        for case .failure(let error) in results {
            #expect((error as? PostgresError)?.sqlState == "CB001", "\(error)")
        }
        #expect(try members(database) == 3)
    }

    private static func joinAfterChecking(_ email: String, url: String) throws {
        let connection = try PostgresConnection(url)
        try connection.transaction {
            let free = try connection.query("""
                select g.capacity - (select count(*) from memberships m where m.group_id = g.id)
                from community_groups g where g.code = 'cp-small-tue'
                """).scalar(Int.self)
            guard free > 0 else { throw TestSetupError("the seat was gone before joining") }
            try connection.query("""
                insert into memberships (group_id, person_id)
                select g.id, p.id from community_groups g, people p where g.code = 'cp-small-tue' and p.email = \(email)
                """)
            Thread.sleep(forTimeInterval: 0.3)
        }
    }

    /// `place` reads the member counts, then is held up on its student's row (this test locks it);
    /// meanwhile `import memberships --wait` wants the same last seat. place holds the memberships'
    /// import lock, so the import waits for it, then counts and sees the group full.
    @Test("place and import memberships racing for the last seat: one gets it, the import reports over-capacity")
    func placeAndImportRace() throws {
        let (database, emails) = try databaseWithOneSeatLeft(students: 2)
        let answers = try scratch.writeFile("answers.csv", """
            First name,Last name,Email,Sex,Year,Campus,Ministries,Availability
            Seat,Seeker,\(emails[0]),Female,Junior,calpoly,cru-calpoly,Tue 7-9pm

            """)
        let joins = try scratch.writeFile("memberships.csv", "group,email\ncp-small-tue,\(emails[1])\n")

        let holder = try database.connect()
        try holder.execute("begin")
        try holder.query("select id from people where email = \(emails[0]) for update")
        let place = try database.start(["place", answers])
        try #require(waitUntil(timeout: 20) {
            try waitingQueries(database).contains { $0.contains("insert into people") }
        }, "place never waited for the student's row")
        let importing = try database.start(["import", "memberships", joins, "--wait"])
        try #require(waitUntil(timeout: 20) {
            try !importing.isRunning || waitingQueries(database).count == 2
        }, "the import neither finished nor waited for place")
        try holder.execute("commit")
        let placed = try place.finish(), imported = try importing.finish()

        #expect(try members(database) == 3)
        #expect(placed.status == 0, "\(placed.stderr)")
        #expect(imported.status == 1, "\(imported.stderr)")
        #expect(imported.stderr.contains("\(joins):2:1: error[over-capacity]: group \"cp-small-tue\" is full"),
                "\(imported.stderr)")
    }

    /// The statements of this database's crubatch sessions that wait for a lock.
    private func waitingQueries(_ database: TestDatabase) throws -> [String] {
        try database.connect().query("""
            select query from pg_stat_activity
            where datname = current_database() and application_name = 'crubatch' and wait_event_type = 'Lock'
            """).rows.map { try $0.decode(String.self, 0) }
    }
}
