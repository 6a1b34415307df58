import CSVStream
import PostgresClient

/// The checks of ride offers and requests against their event (docs/ARCHITECTURE.md, "Rides"): the
/// event shares rides, the ways the ride goes, and the ride says when it leaves each way.
extension DatabaseChecks {
    /// Current rows (not cancelled) whose event shares no rides (`no-rideshare`, at the event), or not
    /// the ways the row goes (`direction-not-offered`, at the direction).
    func ridesNotShared(event: String, direction: String) throws -> [Diagnostic] {
        let current = spec.retirement?.isCurrent(over: "s") ?? "true"
        let rows = try connection.query("""
            select s.line, e.code, e.rideshare, s.\(identifier: direction) from stage s join events e on e.code = s.\(identifier: event)
            where \(unescaped: current) and (e.rideshare = 'no'
                or s.\(identifier: direction) is not null and not ride_direction_covers(e.rideshare, s.\(identifier: direction)))
            order by s.line
            """).rows
        return try rows.map { row in
            let line = try row.decode(Int.self, 0), code = try row.decode(String.self, 1)
            // `no` is no direction: the event shares no rides at all.
            guard let shared = RideDirection(rawValue: try row.decode(String.self, 2)) else {
                return diagnostic(line, column: event, code: .noRideshare, message: "event \"\(code)\" does not share rides",
                                  hint: "its administrator turns ride sharing on in events.csv: rideshare yes (both ways), to or from")
            }
            let wanted = RideDirection(rawValue: try row.decode(String.self, 3)) ?? .both
            return diagnostic(line, column: direction, code: .directionNotOffered,
                              message: "event \"\(code)\" shares rides \(shared.phrase) only; this ride goes \(wanted.phrase)",
                              hint: "make it a ride \(shared.phrase) (direction \(shared.rawValue)), or ask the event's administrator to share rides both ways")
        }
    }

    /// Rows without the departure of a way they go (`departs_to` for a ride to the event).
    func departuresMissing(direction: String, to: String, from: String) throws -> [Diagnostic] {
        try [(RideDirection.to, to), (.from, from)].flatMap { way, column in
            let departure: SQLFragment = isPresent(column) ? "s.\(identifier: column)" : "null"
            return try connection.query("""
                select s.line from stage s
                where \(unescaped: departure) is null and ride_direction_covers(s.\(identifier: direction), \(way.rawValue))
                order by s.line
                """).rows.map { row in
                diagnostic(try row.decode(Int.self, 0), column: column, code: .missingValue,
                           message: "\(column) is required for a ride \(way.phrase)",
                           hint: "give the time the car leaves \(way == .to ? "for the event" : "the event"), e.g. 2026-10-16 15:30")
            }
        }
    }
}
