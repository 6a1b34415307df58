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
    private static func spoken(_ time: SQLFragment) -> SQLFragment {
        "to_char(\(time) at time zone e.timezone, 'FMDay, FMMonth FMDD \"at\" HH24:MI')"
    }

    static func rideNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        try connection.query("""
            select n.id, n.kind, r.*, rp.notifications_opt_out, n.recipient_id = o.driver_id,
                   e.name, \(unescaped: spoken("e.starts_at")), e.location, d.*, q.*,
                   rq.pickup_location, o.pickup_location, p.leg, o.seats,
                   \(unescaped: spoken("case p.leg when 'to' then o.departs_to else o.departs_from end"))
            from notifications n
            join people rp on rp.id = n.recipient_id
            cross join \(PersonContact.of("n.recipient_id")) r
            join ride_pairings p on p.id = n.ride_pairing_id
            join ride_offers o on o.id = p.offer_id
            join ride_requests rq on rq.id = p.request_id
            join events e on e.id = o.event_id
            cross join \(PersonContact.of("o.driver_id")) d
            cross join \(PersonContact.of("rq.passenger_id")) q
            where n.id = any(\(ids)::bigint[])
            order by n.id
            """).rows.compactMap { row in
            let (id, kindName, recipient, optedOut, toDriver, event, starts, location, driver, passenger,
                 pickup, carPickup, leg, seats, departs) = try row.decode(
                (Int, String, PersonContact, Bool, Bool, String, String, String?, PersonContact, PersonContact,
                 String, String, String, Int, String?).self)
            guard let kind = NotificationKind.named(kindName) else { return nil }
            let replyTo = kind.recipient == .rider ? (toDriver ? passenger : driver).mailbox : nil
            var fields: [String: Any] = [
                "recipient_first_name": recipient.firstName,
                "to_driver": toDriver, "to_passenger": !toDriver,
                "event_name": event, "event_starts": starts,
                "driver_name": driver.name, "driver_first_name": driver.firstName, "driver_email": driver.email,
                "passenger_name": passenger.name, "passenger_first_name": passenger.firstName,
                "passenger_email": passenger.email,
                "pickup": pickup, "car_pickup": carPickup, "leg": leg,
                "trip": (RideDirection(rawValue: leg) ?? .both).phrase(event: event),
                "seats": String(seats),
            ]
            fields["event_location"] = location
            fields["driver_phone"] = driver.phone
            fields["passenger_phone"] = passenger.phone
            fields["departs"] = departs
            fields["reply_to_name"] = replyTo?.name
            return Notice(id: id, kind: kind, recipient: recipient.mailbox, optedOut: optedOut, replyTo: replyTo,
                          fields: fields)
        }
    }
}
