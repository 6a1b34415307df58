import CruBatchTestSupport
import CruBatch
import Foundation
import PostgresClient
import Testing

@Suite("cancelled notifications")
struct OutboxCancellationTests {
    private static let joinSmallGroup = """
        insert into memberships (group_id, person_id)
        select g.id, p.id from community_groups g, people p
        where g.code = 'cp-small-tue' and p.email = 'left.early@example.edu'
        """

    private static let newStudent = """
        insert into people (email, first_name, last_name, campus_id)
        select 'left.early@example.edu', 'Left', 'Early', id from campuses where code = 'calpoly'
        """

    @Test("a membership deleted before its notifications are sent cancels them, and status counts them")
    func deletedMembershipCancels() throws {
        let database = try TestDatabase()
        let load = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")])
        try #require(load.status == 0, "\(load.stderr)")
        let connection = try database.connect()
        try connection.execute("update notifications set status = 'sent', sent_at = now()")
        try connection.script(Self.newStudent)
        try connection.script(Self.joinSmallGroup)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 2)

        try connection.execute("""
            delete from memberships where person_id = (select id from people where email = 'left.early@example.edu')
            """)
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)
        #expect(try database.count("""
            select count(*) from notifications where status = 'cancelled' and membership_id is null
            """) == 2)

        let status = try database.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("notifications: 0 pending, 0 failed,"), "\(status.stdout)")
        #expect(status.stdout.contains(", 2 cancelled"), "\(status.stdout)")
    }

    @Test("a membership an undo puts back under its old id queues no join message again; a new one queues its own")
    func restoredMembershipQueuesNothingTwice() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        try connection.script(Self.newStudent)
        try connection.script(Self.joinSmallGroup)
        let joins: PostgresQuery = "select count(*) from notifications where kind in ('joined', 'welcome')"
        let queued = try database.count(joins)
        let leaders = try database.count("""
            select count(*) from group_leaders l join community_groups g on g.id = l.group_id where g.code = 'cp-small-tue'
            """)
        try #require(leaders > 0)
        #expect(try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id
            join people p on p.id = m.person_id where p.email = 'left.early@example.edu' and n.kind = 'joined'
            """) == leaders)
        try connection.execute("update notifications set status = 'sent', sent_at = now()")

        // As a merge's undo does: the row deleted, then inserted again with its id.
        let membership = "select m.* from memberships m join people p on p.id = m.person_id where p.email = 'left.early@example.edu'"
        try connection.transaction {
            try connection.script("""
                create temp table saved on commit drop as \(membership);
                delete from memberships where id in (select id from saved);
                set local crubatch.undoing = 'on';
                insert into memberships overriding system value select * from saved;
                """)
        }
        #expect(try database.count(joins) == queued, "the leaders were told of this membership already")
        #expect(try database.count("select count(*) from notifications where status = 'pending'") == 0)

        // Another student joining afterwards is told about as before.
        try connection.script("""
            insert into people (email, first_name, last_name, campus_id)
            select 'joined.later@example.edu', 'Joined', 'Later', id from campuses where code = 'calpoly';
            insert into memberships (group_id, person_id)
            select g.id, p.id from community_groups g, people p
            where g.code = 'cp-small-tue' and p.email = 'joined.later@example.edu';
            """)
        #expect(try database.count("select count(*) from notifications where status = 'pending' and kind = 'joined'") == leaders)
    }

    @Test("of one statement's memberships, one added as left and one in an archived group tell no leader, the current one does; a join message written by hand about the ended one is left out")
    func inactiveMembershipsQueueNoJoin() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        try connection.script(Self.newStudent)
        try connection.execute("delete from notifications")
        let groups = try connection.query("""
            select code from community_groups g where exists (select 1 from group_leaders l where l.group_id = g.id)
            and code <> 'cp-small-tue' order by code limit 2
            """).rows.map { try $0.decode(String.self, 0) }
        try #require(groups.count == 2)
        try connection.query("update community_groups set archived_at = now() where code = \(groups[0])")
        try connection.query("""
            insert into memberships (group_id, person_id, status)
            select g.id, p.id, case when g.code = 'cp-small-tue' then 'left' else 'active' end
            from community_groups g, people p
            where g.code = any(\(["cp-small-tue"] + groups)::text[]) and p.email = 'left.early@example.edu'
            """)
        #expect(try database.count("select count(*) from memberships m join people p on p.id = m.person_id where p.email = 'left.early@example.edu'") == 3)
        let told = try connection.query("""
            select distinct g.code from notifications n join memberships m on m.id = n.membership_id
            join community_groups g on g.id = m.group_id where n.kind = 'joined'
            """).rows.map { try $0.decode(String.self, 0) }
        #expect(told == [groups[1]])
        // A join message written by hand (as an undo restores one) about the ended membership is still left out.
        let byHand: PostgresQuery = """
            select 'joined', m.id, l.person_id, 'by-hand:' || m.id || ':' || l.person_id from memberships m
            join community_groups g on g.id = m.group_id join group_leaders l on l.group_id = g.id
            where g.code = 'cp-small-tue' and m.status = 'left'
            """
        #expect(try database.count("select count(*) from (\(byHand)) t") == 2)
        let written = try connection.query("""
            insert into notifications (kind, membership_id, recipient_id, dedupe_key) \(byHand)
            """).affectedRows
        #expect(written == 0)
        #expect(try database.count("select count(*) from notifications where dedupe_key like 'by-hand:%'") == 0)
        #expect(try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id
            join group_leaders l on l.group_id = m.group_id and l.person_id = n.recipient_id
            """) == database.count("""
            select count(*) from group_leaders l join community_groups g on g.id = l.group_id where g.code = \(groups[1])
            """))
    }

    @Test("migrating cancels the notifications a deleted membership left pending before")
    func migrationCancelsOrphans() throws {
        let database = try TestDatabase.empty()
        let connection = try database.connect()
        _ = try Migrator(connection: connection, migrations: Array(Migration.all.prefix(2))).migrate()
        try connection.script("""
            insert into campuses (code, name) values ('calpoly', 'Cal Poly');
            insert into ministries (code, name, campus_id) select 'cru-calpoly', 'Cru', id from campuses;
            insert into community_groups (code, ministry_id, name) select 'cp-small-tue', id, 'Small' from ministries;
            insert into people (email, first_name, last_name, phone, is_leader)
            values ('lead@cru.org', 'Lea', 'Der', '+18055550100', true);
            insert into group_leaders (group_id, person_id) select g.id, p.id from community_groups g, people p;
            \(Self.newStudent);
            \(Self.joinSmallGroup);
            delete from memberships;
            """)
        #expect(try connection.query("select status from notifications").text == "pending")

        let migrate = try database.run(["migrate"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(try connection.query("select status from notifications").text == "cancelled")
    }

    @Test("a leave while notify is sending the join still queues the leaders' left message")
    func leaveDuringSendOfJoin() throws {
        let database = try TestDatabase(importing: "central-coast")
        let sender = try database.connect()
        try sender.execute("update notifications set status = 'sent', sent_at = now()")
        try sender.script(Self.newStudent)
        try sender.script(Self.joinSmallGroup)
        let leaders = try database.count("select count(*) from notifications where status = 'pending' and kind = 'joined'")
        try #require(leaders > 0)

        // notify has claimed the joins and is talking to the mail server when the student leaves.
        try sender.execute("begin")
        try sender.execute("select id from notifications where status = 'pending' for update")
        let leave = try BackgroundCommand([database.url, "-v", "ON_ERROR_STOP=1", "-c", """
            update memberships set status = 'left'
            where person_id = (select id from people where email = 'left.early@example.edu')
            """], executable: "/usr/bin/psql")
        try waitUntil(timeout: 10) {
            try database.count("""
                select count(*) from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock' and query like 'update memberships%'
                """) == 1
        }
        try sender.execute("update notifications set status = 'sent', sent_at = now() where status = 'pending'")
        try sender.execute("commit")
        let result = try leave.finish()
        #expect(result.status == 0, "\(result.stderr)")

        // The leaders heard of the join, so each hears of the leave.
        #expect(try database.count("select count(*) from notifications where kind = 'left' and status = 'pending'") == leaders)
        #expect(try database.count("select count(*) from notifications where kind = 'joined' and status = 'sent'") > 0)
    }
}
