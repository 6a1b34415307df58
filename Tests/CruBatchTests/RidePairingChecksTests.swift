import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// What the database refuses of a pairing, whoever writes it (`rides pair`, an undo, the app): a car
/// past its seats on a leg (CB002), and a pairing that joins what cannot ride together (23514). One
/// statement of many pairings is checked as a whole.
@Suite("ride pairing checks")
struct RidePairingChecksTests {
    /// How many pairings are current.
    private func current(_ database: TestDatabase) throws -> Int {
        try database.count("select count(*) from ride_pairings where ended_at is null")
    }

    @Test("a pairing into a full car fails with CB002 naming the offer, the leg, its seats and passengers; one statement bringing two riders into the last seat fails whole; an ended pairing restored into a full car is refused")
    func fullCar() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 2)], riders: ["to", "to", "to", "to"])
        let offer = try database.count("select id from ride_offers")
        try RideShare.pair([(driver: 1, rider: 1, leg: "to")], in: database)

        let both = try #require(throws: PostgresError.self) {
            try RideShare.pair([(driver: 1, rider: 2, leg: "to"), (driver: 1, rider: 3, leg: "to")], in: database)
        }
        #expect(both.sqlState == "CB002")
        // The passengers before the statement.
        #expect(both.message.contains("ride offer \(offer) is full on the \"to\" leg: 2 seats, 1 passengers"), "\(both.message)")
        #expect(try current(database) == 1)

        try RideShare.pair([(driver: 1, rider: 2, leg: "to")], in: database)
        let third = try #require(throws: PostgresError.self) {
            try RideShare.pair([(driver: 1, rider: 3, leg: "to")], in: database)
        }
        #expect(third.sqlState == "CB002")
        #expect(third.message.contains("is full on the \"to\" leg: 2 seats, 2 passengers"), "\(third.message)")
        #expect(third.hint == "pair the request with another car")

        // The first rider steps out, the third takes the seat; the first coming back finds the car full.
        let connection = try database.connect()
        try connection.execute("""
            update ride_pairings set ended_at = now(), end_reason = 'test' where id = (select min(id) from ride_pairings)
            """)
        try RideShare.pair([(driver: 1, rider: 3, leg: "to")], in: database)
        let back = try #require(throws: PostgresError.self) {
            try connection.execute("""
                update ride_pairings set ended_at = null, end_reason = null where id = (select min(id) from ride_pairings)
                """)
        }
        #expect(back.sqlState == "CB002")
        #expect(try current(database) == 2)
        // Rewriting a current pairing as it is takes no second seat.
        #expect(try connection.query("update ride_pairings set leg = leg where ended_at is null").affectedRows == 2)
    }

    @Test("a pairing on a way the request does not travel, of a driver with their own request, or of a cancelled request fails with 23514")
    func cannotRideTogether() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 4)], riders: ["from", "to"])
        let connection = try database.connect()
        let wrongWay = try #require(throws: PostgresError.self) {
            try RideShare.pair([(driver: 1, rider: 2, leg: "to"), (driver: 1, rider: 1, leg: "to")], in: database)
        }
        #expect(wrongWay.sqlState == "23514")
        #expect(wrongWay.message.contains("cannot take ride request"), "\(wrongWay.message)")

        try connection.execute("""
            insert into ride_requests (event_id, passenger_id, direction, pickup_location)
            select event_id, driver_id, 'to', 'Home' from ride_offers
            """)
        let ownCar = try #require(throws: PostgresError.self) {
            try connection.execute("""
                insert into ride_pairings (offer_id, request_id, leg)
                select o.id, r.id, 'to' from ride_offers o join ride_requests r on r.passenger_id = o.driver_id
                """)
        }
        #expect(ownCar.sqlState == "23514")

        try connection.execute("""
            update ride_requests set status = 'cancelled'
            where passenger_id = (select id from people where email = 'p2@example.edu')
            """)
        let cancelled = try #require(throws: PostgresError.self) {
            try RideShare.pair([(driver: 1, rider: 2, leg: "to")], in: database)
        }
        #expect(cancelled.sqlState == "23514")
        #expect(cancelled.message.contains("is cancelled: only an open offer takes a pending request"), "\(cancelled.message)")
        #expect(try current(database) == 0)
    }

    /// Each session checks for a free seat, as an app would, pairs, then holds its transaction open
    /// for a moment: without the database's own check all six would see the seat free.
    @Test("six sessions taking the last seat at once: exactly one gets it, the others get CB002")
    func concurrentSessions() throws {
        let database = try RideShare.database([RideShare.Car(direction: "to", seats: 1)], riders: Array(repeating: "to", count: 6))
        let url = database.url
        let results = Outcomes.race(Array(1...6)) { rider in
            let connection = try PostgresConnection(url)
            try connection.transaction {
                let taken = try connection.query("select count(*) from ride_pairings where ended_at is null").scalar(Int.self)
                guard taken == 0 else { throw TestSetupError("the seat was gone before pairing") }
                try RideShare.pair([(driver: 1, rider: rider, leg: "to")], on: connection)
                Thread.sleep(forTimeInterval: 0.3)
            }
        }
        #expect(results.count == 6)
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        for case .failure(let error) in results {
            #expect((error as? PostgresError)?.sqlState == "CB002", "\(error)")
        }
        #expect(try current(database) == 1)
    }

    /// `rides pair` of 10,000 requests inserts thousands of pairings in a statement per leg; a check
    /// per row looked up the offer, the request and the car's riders again for each.
    @Test("a statement of many pairings runs the pairing check once, not once per pairing")
    func checkedPerStatement() throws {
        let database = try RideShare.database(Array(repeating: RideShare.Car(seats: 6), count: 3),
                                              riders: Array(repeating: "both", count: 18))
        let connection = try database.connect()
        try connection.transaction {
            try connection.execute("set local track_functions = 'pl'")
            try RideShare.pair((1...18).map { (driver: ($0 - 1) / 6 + 1, rider: $0, leg: "to") }, on: connection)
            let calls = try connection.query("""
                select coalesce(sum(calls), 0)::int from pg_stat_xact_user_functions where funcname like 'check_ride_pairing%'
                """).scalar(Int.self)
            #expect(calls == 1)
        }
        #expect(try current(database) == 18)
    }
}
