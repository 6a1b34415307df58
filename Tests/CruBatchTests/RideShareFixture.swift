import CruBatchTestSupport
import Foundation
import PostgresClient

/// One ride-share event with cars and riders made by SQL, and pairings inserted by SQL as `rides pair`
/// or the app would: for the suites on what the database does with pairings.
enum RideShare {
    /// One car: its driver `dN@example.org` (N from 1), the ways it goes and its seats.
    struct Car {
        var direction = "both"
        var seats: Int
    }

    /// A database with one event, Fall Retreat, that shares rides both ways; an offer per element of
    /// `cars` (leaving Friday 15:30, back Sunday 13:30) and a request per element of `riders` by
    /// `pN@example.edu`, who asks for a ride that way.
    static func database(_ cars: [Car], riders: [String]) throws -> TestDatabase {
        let database = try TestDatabase()
        let connection = try database.connect()
        try connection.script("""
            insert into events (code, name, starts_at, timezone, location, rideshare)
            values ('retreat', 'Fall Retreat', '2026-10-16 17:00 America/Los_Angeles', 'America/Los_Angeles',
                    'Camp Ocean Pines', 'both');
            """)
        for (index, car) in cars.enumerated() {
            let number = index + 1
            try connection.script("""
                insert into people (email, first_name, last_name, phone)
                values ('d\(number)@example.org', 'Dana\(number)', 'Driver', '+1805555\(String(format: "%04d", 100 + number))');
                insert into ride_offers (event_id, driver_id, direction, seats, departs_to, departs_from, pickup_location)
                select e.id, p.id, '\(car.direction)', \(car.seats),
                       case when '\(car.direction)' <> 'from' then timestamptz '2026-10-16 15:30 America/Los_Angeles' end,
                       case when '\(car.direction)' <> 'to' then timestamptz '2026-10-18 13:30 America/Los_Angeles' end,
                       'Rec Center lot'
                from events e, people p where e.code = 'retreat' and p.email = 'd\(number)@example.org';
                """)
        }
        for (index, direction) in riders.enumerated() {
            let number = index + 1
            try connection.script("""
                insert into people (email, first_name, last_name, phone, is_member)
                values ('p\(number)@example.edu', 'Pat\(number)', 'Rider', '+1805555\(String(format: "%04d", 500 + number))', false);
                insert into ride_requests (event_id, passenger_id, direction, pickup_location)
                select e.id, p.id, '\(direction)', 'Dorm \(number)'
                from events e, people p where e.code = 'retreat' and p.email = 'p\(number)@example.edu';
                """)
        }
        return database
    }

    /// Seats passenger `pN` in the car of driver `dM` on each leg given, all in one statement.
    static func pair(_ seats: [(driver: Int, rider: Int, leg: String)], in database: TestDatabase) throws {
        try pair(seats, on: try database.connect())
    }

    /// The same on `connection`, inside whatever transaction it has open.
    static func pair(_ seats: [(driver: Int, rider: Int, leg: String)], on connection: PostgresConnection) throws {
        let values = seats.map { "(\($0.driver), \($0.rider), '\($0.leg)')" }.joined(separator: ", ")
        try connection.script("""
            insert into ride_pairings (offer_id, request_id, leg)
            select o.id, r.id, v.leg from (values \(values)) v (driver, rider, leg)
            join people d on d.email = 'd' || v.driver || '@example.org' join ride_offers o on o.driver_id = d.id
            join people p on p.email = 'p' || v.rider || '@example.edu' join ride_requests r on r.passenger_id = p.id
            """)
    }
}
