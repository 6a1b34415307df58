import Mailer
import MessageTemplates
import PostgresClient

/// The facts of ride messages: the pairing's event, driver, passenger, leg and car. Each message
/// goes to the driver or the passenger (`to_driver`, `to_passenger` say which) and gives the other
/// one's contacts; replies reach the other one, but for `ride-full`, which is about the car.
extension NotificationSubject {
    /// The fields of a ride message's template.
    static let rideFields: [String: TemplateSchema.Field] = [
        "recipient_first_name": .value, "to_driver": .section([:]), "to_passenger": .section([:]),
        "event_name": .value, "event_starts": .value, "event_location": .value,
        "driver_name": .value, "driver_first_name": .value, "driver_email": .value, "driver_phone": .value,
        "passenger_name": .value, "passenger_first_name": .value, "passenger_email": .value, "passenger_phone": .value,
        "pickup": .value, "car_pickup": .value, "leg": .value, "trip": .value, "departs": .value, "seats": .value,
        "reply_to_name": .value,
    ]

    /// A time as a message gives it, in the event's zone: `Friday, October 16 at 15:30`.
    private static func spoken(_ time: String) -> String {
        "to_char(\(time) at time zone e.timezone, 'FMDay, FMMonth FMDD \"at\" HH24:MI')"
    }

    static func rideNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        try connection.query("""
            select n.id, n.kind, r.first_name, r.first_name || ' ' || r.last_name, r.email, r.notifications_opt_out,
                   n.recipient_id = o.driver_id,
                   e.name, \(unescaped: spoken("e.starts_at")), e.location,
                   d.first_name, d.first_name || ' ' || d.last_name, d.email, d.phone,
                   q.first_name, q.first_name || ' ' || q.last_name, q.email, q.phone,
                   rq.pickup_location, o.pickup_location, p.leg, o.seats,
                   \(unescaped: spoken("case p.leg when 'to' then o.departs_to else o.departs_from end"))
            from notifications n
            join people r on r.id = n.recipient_id
            join ride_pairings p on p.id = n.ride_pairing_id
            join ride_offers o on o.id = p.offer_id
            join ride_requests rq on rq.id = p.request_id
            join events e on e.id = o.event_id
            join people d on d.id = o.driver_id
            join people q on q.id = rq.passenger_id
            where n.id = any(\(ids)::bigint[])
            order by n.id
            """).rows.compactMap { row in
            guard let kind = NotificationKind.named(try row.decode(String.self, 1)) else { return nil }
            let toDriver = try row.decode(Bool.self, 6)
            let event = try row.decode(String.self, 7), leg = try row.decode(String.self, 20)
            let driver = EmailAddress(try row.decode(String.self, 12), name: try row.decode(String.self, 11))
            let passenger = EmailAddress(try row.decode(String.self, 16), name: try row.decode(String.self, 15))
            let replyTo = kind.recipient == .rider ? (toDriver ? passenger : driver) : nil
            var fields: [String: Any] = [
                "recipient_first_name": try row.decode(String.self, 2),
                "to_driver": toDriver, "to_passenger": !toDriver,
                "event_name": event, "event_starts": try row.decode(String.self, 8),
                "driver_name": driver.name ?? "", "driver_first_name": try row.decode(String.self, 10),
                "driver_email": driver.address,
                "passenger_name": passenger.name ?? "", "passenger_first_name": try row.decode(String.self, 14),
                "passenger_email": passenger.address,
                "pickup": try row.decode(String.self, 18), "car_pickup": try row.decode(String.self, 19), "leg": leg,
                "trip": (RideDirection(rawValue: leg) ?? .both).phrase(event: event),
                "seats": String(try row.decode(Int.self, 21)),
            ]
            fields["event_location"] = try row.decode(String?.self, 9)
            fields["driver_phone"] = try row.decode(String?.self, 13).map { PeopleText.phone($0) }
            fields["passenger_phone"] = try row.decode(String?.self, 17).map { PeopleText.phone($0) }
            fields["departs"] = try row.decode(String?.self, 22)
            fields["reply_to_name"] = replyTo?.name
            return Notice(id: try row.decode(Int.self, 0), kind: kind,
                          recipient: EmailAddress(try row.decode(String.self, 4), name: try row.decode(String.self, 3)),
                          optedOut: try row.decode(Bool.self, 5), replyTo: replyTo, fields: fields)
        }
    }
}
