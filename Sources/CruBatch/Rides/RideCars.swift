import PostgresClient

/// One event's cars: each open offer with its driver, when and where it leaves, its seats, and the
/// passengers of its active pairings. Times are wall-clock times in the event's zone
/// (`2026-10-16 15:30`); phones as stored (E.164). `export rides` writes it as blocks for people or
/// as one JSON document.
struct RideCars: Encodable {
    /// The event, as its block of a rides file names it.
    struct Event: Encodable {
        let code: String
        let name: String
        let startsAt: String
        let location: String?
        /// The ways it shares rides: no, to, from, both.
        let rideshare: String
    }

    /// Who drives.
    struct Driver: Encodable {
        let firstName: String
        let lastName: String
        let email: String
        let phone: String?
    }

    /// Someone riding in a car, one way or both.
    struct Passenger: Encodable {
        /// The ride request's id (for `rides cancel --request`).
        let request: Int
        let firstName: String
        let lastName: String
        let email: String
        let phone: String?
        /// The legs of this car the passenger rides: `to`, `from` or both.
        let legs: [String]
        let pickupLocation: String
        let postalCode: String?

        /// The legs in words: `to the event`, `to the event and back` ...
        var ridesText: String { (legs.count > 1 ? RideDirection.both : RideDirection(rawValue: legs[0]) ?? .both).phrase }
    }

    /// One open offer and who rides with it.
    struct Car: Encodable {
        /// The ride offer's id (for `rides cancel --offer`).
        let offer: Int
        let driver: Driver
        let direction: String
        let departsTo: String?
        let departsFrom: String?
        let pickupLocation: String
        let latitude: Double?
        let longitude: Double?
        let postalCode: String?
        let seats: Int
        let passengers: [Passenger]
    }

    let event: Event
    let cars: [Car]

    /// The cars of the event with this code, by departure time, then driver; cancelled offers and
    /// ended pairings are left out. An unknown code is a usage error.
    static func load(event code: String, connection: PostgresConnection) throws -> RideCars {
        guard let row = try connection.query("""
            select e.id, e.code, e.name, to_char(e.starts_at at time zone e.timezone, 'YYYY-MM-DD HH24:MI'), e.location,
                   e.rideshare, e.timezone
            from events e where e.code = \(code.lowercased())
            """).rows.first else {
            throw CruBatchError.usage("no event \(code): check the code (see `crubatch export events`)")
        }
        let (id, event, zone) = try row.decode((Int, Event, String).self)
        var passengers: [Int: [Passenger]] = [:]
        for row in try connection.query("""
            select p.offer_id, r.id, q.first_name, q.last_name, q.email, q.phone, string_agg(p.leg, ';' order by p.leg = 'from'),
                   r.pickup_location, r.postal_code
            from ride_pairings p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
            join people q on q.id = r.passenger_id
            where o.event_id = \(id) and p.ended_at is null
            group by p.offer_id, r.id, q.first_name, q.last_name, q.email, q.phone
            order by q.last_name, q.first_name, q.email
            """).rows {
            let (offer, passenger) = try row.decode((Int, Passenger).self)
            passengers[offer, default: []].append(passenger)
        }
        let cars = try connection.query("""
            select o.id, d.first_name, d.last_name, d.email, d.phone, o.direction,
                   to_char(o.departs_to at time zone \(zone), 'YYYY-MM-DD HH24:MI'),
                   to_char(o.departs_from at time zone \(zone), 'YYYY-MM-DD HH24:MI'),
                   o.pickup_location, o.latitude::float8, o.longitude::float8, o.postal_code, o.seats
            from ride_offers o join people d on d.id = o.driver_id
            where o.event_id = \(id) and \(unescaped: KindCatalog.rideCancelled.isCurrent(over: "o"))
            order by coalesce(o.departs_to, o.departs_from), d.last_name, d.first_name, d.email
            """).rows.map { row in
            let (offer, driver, direction, departsTo, departsFrom, pickupLocation, latitude, longitude, postalCode, seats)
                = try row.decode((Int, Driver, String, String?, String?, String, Double?, Double?, String?, Int).self)
            return Car(offer: offer, driver: driver, direction: direction, departsTo: departsTo, departsFrom: departsFrom,
                       pickupLocation: pickupLocation, latitude: latitude, longitude: longitude, postalCode: postalCode,
                       seats: seats, passengers: passengers[offer] ?? [])
        }
        return RideCars(event: event, cars: cars)
    }

    /// The rides file for people, block by block: the event, then per car its offer, driver, the
    /// ways it goes and when it leaves, where it picks up and its seats, over its passengers' table.
    /// Phones in the form people write them.
    var blocks: [[[String]]] {
        let sharing = RideDirection(rawValue: event.rideshare)?.phrase ?? "none"
        var head = [["Event", "\(event.name) (\(event.code))"], ["Starts", event.startsAt]]
        if let location = event.location { head.append(["Location", location]) }
        head.append(["Ride sharing", sharing])
        return [head] + cars.map(\.block)
    }
}

extension RideCars.Car {
    /// The car's block of the rides file for people.
    var block: [[String]] {
        var lines = [["Offer", String(offer)],
                     ["Driver", "\(driver.firstName) \(driver.lastName)", driver.email, PeopleText.phone(driver.phone)],
                     ["Goes", RideDirection(rawValue: direction)?.phrase ?? direction]]
        if let departsTo { lines.append(["Leaves for the event", departsTo]) }
        if let departsFrom { lines.append(["Leaves the event", departsFrom]) }
        lines.append(["Pickup", pickupLocation] + (postalCode.map { [$0] } ?? []))
        lines.append(["Seats", String(seats)])
        lines.append(["Request", "First name", "Last name", "Phone", "Rides", "Pickup"])
        for passenger in passengers {
            lines.append([String(passenger.request), passenger.firstName, passenger.lastName,
                          PeopleText.phone(passenger.phone), passenger.ridesText, passenger.pickupLocation])
        }
        return lines
    }
}


extension RideCars.Event: PostgresRowDecodable {
    /// Reads code, name, start, location and ride sharing, in that order.
    init(cells: inout PostgresCells) throws(PostgresError) {
        self.init(code: try cells.next(String.self), name: try cells.next(String.self), startsAt: try cells.next(String.self),
                  location: try cells.next(String?.self), rideshare: try cells.next(String.self))
    }
}

extension RideCars.Driver: PostgresRowDecodable {
    /// Reads first name, last name, email and phone, in that order.
    init(cells: inout PostgresCells) throws(PostgresError) {
        self.init(firstName: try cells.next(String.self), lastName: try cells.next(String.self),
                  email: try cells.next(String.self), phone: try cells.next(String?.self))
    }
}

extension RideCars.Passenger: PostgresRowDecodable {
    /// Reads the request's id, first and last name, email, phone, the legs (`to;from`), pickup and postal code.
    init(cells: inout PostgresCells) throws(PostgresError) {
        self.init(request: try cells.next(Int.self), firstName: try cells.next(String.self),
                  lastName: try cells.next(String.self), email: try cells.next(String.self), phone: try cells.next(String?.self),
                  legs: try cells.next(String.self).split(separator: ";").map(String.init),
                  pickupLocation: try cells.next(String.self), postalCode: try cells.next(String?.self))
    }
}
