import Foundation
import PostgresClient

/// How `crubatch rides pair` runs.
public struct RidesPairOptions: Sendable {
    /// The code of the one event to pair; nil for every event that shares rides and has not ended.
    public var event: String?
    /// Pair and insert in the transaction, report, then roll back.
    public var dryRun = false
    /// What the new pairings queue (`ride-paired`, `ride-full`); `--no-notify` records them as suppressed.
    public var messages = JoinMessages()

    public init() {}
}

/// `crubatch rides pair`: seats the pending ride requests of events that share rides in their open
/// offers, by `RidePairing`'s rules, in one transaction.
///
/// It holds the writer locks of ride offer and request imports (so a second `rides pair`, an import
/// or `rides cancel` waits its turn), then locks the events' open offers and pending requests
/// against other writers (the app) before it reads their active pairings, which it keeps. A leg
/// counts only when the event shares rides that way. Each leg's new pairings are inserted with one
/// statement while the next leg is solved; the database's trigger checks each again, and a first
/// load of pairings checks their keys once (`BulkLoadKeys`). The run is
/// recorded in `import_runs` (kind `rides-pair`), and its pairings in `run_changes`, so `crubatch
/// undo` takes them back.
public struct RidesPairRun {
    let options: RidesPairOptions

    public init(options: RidesPairOptions = RidesPairOptions()) {
        self.options = options
    }

    public func run(connection: PostgresConnection) throws -> RidesPairReport {
        let started = Date()
        try Migrator(connection: connection).requireCurrent()
        if let code = options.event { try Self.checkSharesRides(code, connection: connection) }
        let scope = options.event.map { "event \($0.lowercased())" } ?? "upcoming events"
        let run = WriterRun(
            connection: connection, kind: .ridesPair, file: scope, dryRun: options.dryRun,
            locks: .writers([.rideOffers, .rideRequests],
                            against: "another rides pair, rides cancel or an import of ride offers or requests"))
        var report = RidesPairReport()
        report.dryRun = options.dryRun
        let runID = try run.perform { _ in
            try options.messages.apply(on: connection)
            let events = try RideShareEvents.load(code: options.event, connection: connection)
            var pairings = events.map {
                RideLegPairing(offers: $0.offers.map(\.offer), requests: $0.requests.map(\.request), kept: $0.kept)
            }
            var current = 0
            // The new pairings of the next leg to solve, of this event or the next; nil when all are,
            // and then the report's tables are set while the last leg's pairings are written.
            func solveNextLeg() -> [RidePair]? {
                while current < pairings.count {
                    if let decided = pairings[current].next() { return decided.map(\.pair) }
                    report.add(pairings[current].result, of: events[current])
                    current += 1
                }
                report.setTables()
                return nil
            }
            // Pairing more request legs than the table holds is a first load: its keys are checked
            // once, after the inserts.
            let legs = events.reduce(0) { $0 + $1.requests.reduce(0) { $0 + $1.request.windows.count } - $1.kept.count }
            let keys = try BulkLoadKeys.dropIfWorthIt(table: "ride_pairings", tables: ["ride_pairings"], newRows: legs,
                                                      connection: connection)
            // Each leg's pairings are inserted while the next leg is solved: the server's triggers
            // (seat checks, messages, the change log) and crubatch's solver overlap.
            var next = solveNextLeg()
            while let pairs = next {
                next = try connection.execute("""
                    insert into ride_pairings (offer_id, request_id, leg)
                    select * from unnest(\(pairs.map(\.offerID))::bigint[], \(pairs.map(\.requestID))::bigint[],
                                         \(pairs.map(\.leg.rawValue))::text[])
                    """, while: solveNextLeg)
            }
            try keys?.restore(connection: connection)
            if !options.dryRun { try TableStatistics.refresh(["ride_pairings", "notifications"], connection: connection) }
        }.ids[0]
        let counts = RunLog.Counts(read: report.events.reduce(0) { $0 + $1.requests }, inserted: report.pairings.count)
        try run.log.finish(runID, status: .succeeded, counts: counts, wrote: !options.dryRun)
        report.runID = runID
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// A usage error unless the event exists, is not archived and shares rides.
    static func checkSharesRides(_ code: String, connection: PostgresConnection) throws {
        guard let row = try connection.query("""
            select e.rideshare, \(unescaped: Retirement.archive.isCurrent(over: "e"))
            from events e where e.code = \(code.lowercased())
            """).rows.first else {
            throw CruBatchError.usage("no event \(code): check the code (see `crubatch export events`)")
        }
        let (rideshare, current) = try row.decode((String, Bool).self)
        guard current else {
            throw CruBatchError.usage("event \(code) is archived: it pairs no rides")
        }
        guard rideshare != "no" else {
            throw CruBatchError.usage("event \(code) does not share rides (its rideshare is no in events.csv)")
        }
    }
}

/// What `rides pair` reads of one event: its open offers and pending requests with the people and
/// texts the report names, and its active pairings.
struct RideShareEvents {
    struct Offer {
        let offer: RideOffer
        let driver: RidesPairReport.Person
        /// Per leg, the departure as a wall-clock time in the event's zone (`2026-10-16 15:30`).
        let leaves: [RideLeg: String]
    }

    struct Request {
        let request: RideRequest
        let passenger: RidesPairReport.Person
    }

    let code: String
    let offers: [Offer]
    let requests: [Request]
    let kept: [RidePair]

    /// The events that share rides, are not archived and, without a code, have not ended; each with
    /// its offers and requests locked (`for no key update`) before its pairings are read.
    static func load(code: String?, connection: PostgresConnection) throws -> [RideShareEvents] {
        let which: PostgresQuery = code.map { "e.code = \($0.lowercased())" }
            ?? "coalesce(e.ends_at, e.starts_at) >= now()"
        let events = try connection.query("""
            select e.id, e.code, e.rideshare from events e
            where e.rideshare <> 'no' and \(unescaped: Retirement.archive.isCurrent(over: "e")) and \(which)
            order by e.code
            """).rows.map { row in
            let (id, code, shares) = try row.decode((Int, String, String).self)
            return (id: id, code: code, shares: shares)
        }
        let ids = events.map(\.id)
        var offers: [Int: [Offer]] = [:], requests: [Int: [Request]] = [:], kept: [Int: [RidePair]] = [:]
        let ways = Dictionary(uniqueKeysWithValues: events.map { ($0.id, Self.legs($0.shares)) })
        for row in try connection.query("""
            select o.event_id, o.id, o.direction, o.seats,
                   extract(epoch from o.departs_to)::float8, extract(epoch from o.departs_from)::float8,
                   to_char(o.departs_to at time zone e.timezone, 'YYYY-MM-DD HH24:MI'),
                   to_char(o.departs_from at time zone e.timezone, 'YYYY-MM-DD HH24:MI'),
                   o.pickup_location, o.latitude::float8, o.longitude::float8, o.postal_code,
                   o.driver_id, d.first_name || ' ' || d.last_name, d.email
            from ride_offers o join events e on e.id = o.event_id join people d on d.id = o.driver_id
            where o.event_id = any(\(ids)::bigint[]) and \(unescaped: KindCatalog.rideCancelled.isCurrent(over: "o"))
            order by o.id for no key update of o
            """).rows {
            let (event, id, direction, seats, epochTo, epochFrom, textTo, textFrom, pickup, driverID, name, email)
                = try row.decode((Int, Int, String, Int, Double?, Double?, String?, String?, PickupPoint, Int, String,
                                  String).self)
            let legs = Self.legs(direction).intersection(ways[event] ?? [])
            var departures: [RideLeg: Date] = [:], leaves: [RideLeg: String] = [:]
            for (leg, epoch, text) in [(RideLeg.to, epochTo, textTo), (.from, epochFrom, textFrom)] where legs.contains(leg) {
                guard let epoch, let text else { continue }
                departures[leg] = Date(timeIntervalSince1970: epoch)
                leaves[leg] = text
            }
            let offer = RideOffer(id: Int64(id), departures: departures, seats: seats, pickup: pickup,
                                  driverID: Int64(driverID))
            offers[event, default: []].append(Offer(offer: offer, driver: RidesPairReport.Person(name: name, email: email),
                                                    leaves: leaves))
        }
        for row in try connection.query("""
            select r.event_id, r.id, r.direction,
                   extract(epoch from r.earliest_departure)::float8, extract(epoch from r.latest_departure)::float8,
                   r.pickup_location, r.latitude::float8, r.longitude::float8, r.postal_code,
                   r.passenger_id, p.first_name || ' ' || p.last_name, p.email
            from ride_requests r join people p on p.id = r.passenger_id
            where r.event_id = any(\(ids)::bigint[]) and \(unescaped: KindCatalog.rideCancelled.isCurrent(over: "r"))
            order by r.id for no key update of r
            """).rows {
            let (event, id, direction, earliestEpoch, latestEpoch, pickup, passengerID, name, email)
                = try row.decode((Int, Int, String, Double?, Double?, PickupPoint, Int, String, String).self)
            let earliest = earliestEpoch.map(Date.init(timeIntervalSince1970:)) ?? .distantPast
            let latest = latestEpoch.map(Date.init(timeIntervalSince1970:)) ?? .distantFuture
            // The window is for the way there; for a request back only, for the way back.
            var windows: [RideLeg: ClosedRange<Date>] = [:]
            for leg in Self.legs(direction).intersection(ways[event] ?? []) {
                windows[leg] = leg == .to || direction == "from" ? earliest...latest : .distantPast ... .distantFuture
            }
            let request = RideRequest(id: Int64(id), windows: windows, pickup: pickup, passengerID: Int64(passengerID))
            requests[event, default: []].append(Request(request: request,
                                                        passenger: RidesPairReport.Person(name: name, email: email)))
        }
        for row in try connection.query("""
            select o.event_id, p.offer_id, p.request_id, p.leg
            from ride_pairings p join ride_offers o on o.id = p.offer_id
            where o.event_id = any(\(ids)::bigint[]) and p.ended_at is null
            """).rows {
            let (event, offerID, requestID, leg) = try row.decode((Int, Int, Int, String).self)
            kept[event, default: []].append(RidePair(requestID: Int64(requestID), offerID: Int64(offerID),
                                                     leg: RideLeg(rawValue: leg) ?? .to))
        }
        return events.map {
            RideShareEvents(code: $0.code, offers: offers[$0.id] ?? [], requests: requests[$0.id] ?? [],
                            kept: kept[$0.id] ?? [])
        }
    }

    /// The legs of a direction or of an event's rideshare: `both` is both, `no` none.
    static func legs(_ direction: String) -> Set<RideLeg> {
        direction == "both" ? [.to, .from] : Set(RideLeg(rawValue: direction).map { [$0] } ?? [])
    }
}

extension PickupPoint: PostgresRowDecodable {
    /// Reads location, latitude, longitude and postal code, in that order; a coordinate needs both halves.
    init(cells: inout PostgresCells) throws(PostgresError) {
        let (place, latitude, longitude) = (try cells.next(String.self), try cells.next(Double?.self),
                                            try cells.next(Double?.self))
        self.init(place: place, coordinate: latitude.flatMap { latitude in
            longitude.map { Coordinate(latitude: latitude, longitude: $0) }
        }, postalCode: try cells.next(String?.self))
    }
}
