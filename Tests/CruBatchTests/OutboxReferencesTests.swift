@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The outbox's references (its kind, recipient, membership, ride pairing, check-in and ministry) are
/// checked once per statement by triggers, not row by row by declared foreign keys. These tests hold
/// the triggers to what the declared keys did: a message naming a row that is not there is refused,
/// a deleted row takes its messages along or leaves them without it, a kind in use stays, and a
/// delete racing a writer leaves no message naming a deleted person.
@Suite("outbox references")
struct OutboxReferencesTests {
    /// A message queued by hand, as a trigger queues one: `kind` to the person with `email`.
    private static func queue(_ kind: String, to email: String, key: String) -> PostgresQuery {
        """
        insert into notifications (kind, recipient_id, dedupe_key)
        select \(kind), id, \(key) from people where email = \(email)
        """
    }

    @Test("the schema has the triggers of every reference OutboxReferences lists, and check_references checks each")
    func referencesAsListed() throws {
        let database = try LoadedDatabase.get()
        for reference in OutboxReferences.all {
            let triggers = try database.connect().query("""
                select string_agg(t.tgname, ',' order by t.tgname) from pg_trigger t join pg_class c on c.oid = t.tgrelid
                where c.relname = \(reference.table) and t.tgname like \("notifications_" + reference.column + "_on_%")
                """).text
            #expect(triggers == "notifications_\(reference.column)_on_delete,notifications_\(reference.column)_on_key_update",
                    "\(reference.table).\(reference.key): \(triggers ?? "none")")
            #expect(try database.count("""
                select count(*) from pg_trigger t join pg_class c on c.oid = t.tgrelid
                where c.relname = 'notifications' and t.tgfoid = 'check_references'::regproc
                and strpos(encode(t.tgargs, 'escape'), \([reference.column, reference.table, reference.key].map { $0 + "\\000" }.joined())) > 0
                """) > 0, "check_references does not check \(reference.column)")
        }
    }

    private func messages(to email: String, in database: TestDatabase) throws -> Int {
        try database.count("""
            select count(*) from notifications n join people p on p.id = n.recipient_id where p.email = \(email)
            """)
    }

    @Test("a message naming a person, a kind, a membership, a ride pairing, a check-in or a ministry that is not there fails with 23503 naming it, and its whole statement with it")
    func missingReferencesRefused() throws {
        let database = try RideShare.database([RideShare.Car(seats: 2)], riders: ["to"])
        let connection = try database.connect()
        let person = try database.count("select id from people where email = 'p1@example.edu'")
        for (column, value, table) in [("recipient_id", "999999", "people"), ("membership_id", "999998", "memberships"),
                                       ("ride_pairing_id", "999997", "ride_pairings"), ("attendance_id", "999996", "attendance")] {
            // A good row, then the bad one: the statement fails whole.
            let subject = column == "recipient_id" ? "membership_id" : column
            let bad = column == "recipient_id" ? "\(value), null" : "\(person), \(value)"
            let statement = """
                insert into notifications (kind, recipient_id, \(subject), dedupe_key)
                values ('ride-paired', \(person), null, 'good:\(column)'), ('ride-paired', \(bad), 'bad:\(column)')
                """
            let refused = try #require(throws: PostgresError.self) {
                try connection.execute(PostgresQuery(stringLiteral: statement))
            }
            #expect(refused.sqlState == "23503", "\(refused)")
            #expect(refused.message == "insert or update on table \"notifications\" violates its reference to table \"\(table)\"")
            #expect(refused.detail == "Key (\(column))=(\(value)) is not present in table \"\(table)\".")
        }
        let kind = try #require(throws: PostgresError.self) {
            try connection.query(Self.queue("no-such-kind", to: "p1@example.edu", key: "bad:kind"))
        }
        #expect(kind.sqlState == "23503")
        #expect(kind.detail == "Key (kind)=(no-such-kind) is not present in table \"notification_kinds\".")
        let ministry = try #require(throws: PostgresError.self) {
            try connection.execute("insert into notifications (kind, ministry_id, dedupe_key) values ('newcomer', 999995, 'bad:ministry')")
        }
        #expect(ministry.detail == "Key (ministry_id)=(999995) is not present in table \"ministries\".")
        // The good row of each refused statement went with it.
        #expect(try database.count("select count(*) from notifications") == 0)
        try connection.query(Self.queue("ride-paired", to: "p1@example.edu", key: "good"))
        #expect(try messages(to: "p1@example.edu", in: database) == 1)
    }

    @Test("pointing a message at a person who is not there fails; pointing it at another person or marking it sent does not")
    func updatesChecked() throws {
        let database = try RideShare.database([RideShare.Car(seats: 2)], riders: ["to"])
        let connection = try database.connect()
        try connection.query(Self.queue("ride-paired", to: "p1@example.edu", key: "one"))
        let refused = try #require(throws: PostgresError.self) {
            try connection.execute("update notifications set recipient_id = 999999")
        }
        #expect(refused.sqlState == "23503")
        #expect(refused.detail == "Key (recipient_id)=(999999) is not present in table \"people\".")
        try connection.execute("update notifications set recipient_id = (select id from people where email = 'd1@example.org')")
        try connection.execute("update notifications set status = 'sent', sent_at = now()")
        #expect(try messages(to: "d1@example.org", in: database) == 1)
    }

    @Test("deleting a person deletes the messages to them; a ride pairing deleted leaves its messages without it; a ministry deleted takes its messages")
    func deletesFollowed() throws {
        let database = try RideShare.database([RideShare.Car(seats: 2)], riders: ["to", "to"])
        try RideShare.pair([(driver: 1, rider: 1, leg: "to"), (driver: 1, rider: 2, leg: "to")], in: database)
        let connection = try database.connect()
        try connection.execute("update notifications set status = 'sent', sent_at = now()")
        let all = try database.count("select count(*) from notifications")
        #expect(try messages(to: "p1@example.edu", in: database) == 1)

        // The pairing goes; its messages stay, about nothing.
        let pairing = try database.count("""
            select s.id from ride_pairings s join ride_requests r on r.id = s.request_id join people p on p.id = r.passenger_id
            where p.email = 'p2@example.edu'
            """)
        let aboutPairing = try database.count("select count(*) from notifications where ride_pairing_id = \(pairing)")
        try #require(aboutPairing >= 2)
        try connection.execute("delete from ride_pairings where id = \(pairing)")
        #expect(try database.count("select count(*) from notifications where ride_pairing_id is null") == aboutPairing)
        #expect(try database.count("select count(*) from notifications") == all)

        // The person goes, with every message to them, and nothing else.
        try connection.execute("delete from people where email = 'p1@example.edu'")
        #expect(try messages(to: "p1@example.edu", in: database) == 0)
        #expect(try database.count("select count(*) from notifications") == all - 1)

        try connection.script("""
            insert into campuses (code, name) values ('calpoly', 'Cal Poly');
            insert into ministries (code, name, campus_id) select 'cru-calpoly', 'Cru Cal Poly', id from campuses;
            insert into notifications (kind, ministry_id, dedupe_key) select 'newcomer', id, 'newcomer:test' from ministries;
            """)
        try connection.execute("delete from ministries")
        #expect(try database.count("select count(*) from notifications where kind = 'newcomer'") == 0)
        #expect(try database.count("select count(*) from notifications") == all - 1)
    }

    @Test("deleting a membership leaves its messages without it, and checks no reference of theirs")
    func membershipDeleted() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        let membership = try database.count("select min(membership_id) from notifications where kind = 'joined'")
        let about = try database.count("select count(*) from notifications where membership_id = \(membership)")
        let aboutNothing = try database.count("select count(*) from notifications where membership_id is null")
        let all = try database.count("select count(*) from notifications")
        try #require(about > 0)
        try connection.transaction {
            try connection.execute("set local track_functions = 'pl'")
            try connection.execute("delete from memberships where id = \(membership)")
            // Setting a reference to null is not a reference to check.
            #expect(try connection.query("""
                select coalesce(sum(calls), 0)::int from pg_stat_xact_user_functions where funcname = 'check_references'
                """).scalar(Int.self) == 0)
        }
        #expect(try database.count("select count(*) from notifications where membership_id is null") == aboutNothing + about)
        #expect(try database.count("select count(*) from notifications") == all)
    }

    @Test("a kind that messages name can be neither deleted nor renamed; one that none names can")
    func kindsInUseStay() throws {
        let database = try RideShare.database([RideShare.Car(seats: 2)], riders: ["to"])
        let connection = try database.connect()
        try connection.query(Self.queue("ride-paired", to: "p1@example.edu", key: "one"))
        for statement in ["delete from notification_kinds where kind = 'ride-paired'",
                          "update notification_kinds set kind = 'ride-matched' where kind = 'ride-paired'"] {
            let refused = try #require(throws: PostgresError.self) { try connection.execute(PostgresQuery(stringLiteral: statement)) }
            #expect(refused.sqlState == "23503", "\(statement)")
            #expect(refused.message == "update or delete on table \"notification_kinds\" violates the reference from table \"notifications\"")
            #expect(refused.detail == "Key (kind)=(ride-paired) is still referenced from table \"notifications\".")
        }
        try connection.execute("update notification_kinds set kind = 'seat-opened' where kind = 'seat-freed'")
        try connection.execute("delete from notification_kinds where kind = 'seat-opened'")
        #expect(try database.count("select count(*) from notification_kinds where kind in ('ride-paired', 'seat-freed', 'seat-opened')") == 1)
    }

    @Test("a statement queuing many messages checks their references once")
    func checkedPerStatement() throws {
        let database = try RideShare.database([RideShare.Car(seats: 6)], riders: Array(repeating: "to", count: 6))
        let connection = try database.connect()
        try connection.transaction {
            try connection.execute("set local track_functions = 'pl'")
            try RideShare.pair((1...6).map { (driver: 1, rider: $0, leg: "to") }, on: connection)
            #expect(try connection.query("select count(*) from notifications").scalar(Int.self) == 13)
            let calls = try connection.query("""
                select coalesce(sum(calls), 0)::int from pg_stat_xact_user_functions where funcname = 'check_references'
                """).scalar(Int.self)
            // One statement of `ride-paired` messages, one of `ride-full`.
            #expect(calls == 2)
        }
    }

    /// Waits until a session of the database at `url` waits for a lock.
    private static func waitForBlocked(_ url: String) throws -> Bool {
        let watcher = try PostgresConnection(url)
        return try waitUntil(timeout: 20) {
            try watcher.query("""
                select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
                """).scalar(Int.self) > 0
        }
    }

    /// Each side holds its transaction open until the other waits for it.
    @Test("a person deleted while a writer queues a message to them: the delete waits and takes the message too; a writer that waited for the delete fails with 23503")
    func deleteRacesWriter() throws {
        let database = try RideShare.database([RideShare.Car(seats: 2)], riders: ["to"])
        let url = database.url
        let queued = DispatchSemaphore(value: 0)
        let queueFirst = Outcomes.race(["writer", "deleter"]) { role in
            let connection = try PostgresConnection(url)
            if role == "writer" {
                try connection.transaction {
                    try connection.query(Self.queue("ride-paired", to: "p1@example.edu", key: "first"))
                    queued.signal()
                    guard try Self.waitForBlocked(url) else { throw TestSetupError("the delete did not wait for the writer") }
                }
            } else {
                queued.wait()
                try connection.execute("delete from people where email = 'p1@example.edu'")
            }
        }
        #expect(queueFirst.allSatisfy { (try? $0.get()) != nil }, "\(queueFirst)")
        #expect(try database.count("select count(*) from people where email = 'p1@example.edu'") == 0)
        #expect(try database.count("select count(*) from notifications") == 0)

        let deleted = DispatchSemaphore(value: 0)
        let deleteFirst = Outcomes.race(["writer", "deleter"]) { role in
            let connection = try PostgresConnection(url)
            if role == "deleter" {
                try connection.transaction {
                    try connection.execute("delete from people where email = 'd1@example.org'")
                    deleted.signal()
                    guard try Self.waitForBlocked(url) else { throw TestSetupError("the writer did not wait for the delete") }
                }
            } else {
                deleted.wait()
                try connection.execute("""
                    insert into notifications (kind, recipient_id, dedupe_key)
                    select 'ride-full', id, 'second' from people where email = 'd1@example.org'
                    """)
            }
        }
        let refused = deleteFirst.compactMap { result -> PostgresError? in
            if case .failure(let error) = result { return error as? PostgresError }
            return nil
        }
        #expect(refused.count == 1, "\(deleteFirst)")
        #expect(refused.first?.sqlState == "23503")
        #expect(try database.count("select count(*) from notifications") == 0)
    }
}
