import Mailer
import MessageTemplates
import PostgresClient

/// The facts of newcomer messages: who came to which event for the first time, and the groups of
/// the ministry that fit them by `place`'s rules (`PlaceGroup.fitting`). Each message goes to the
/// ministry's staff contact (`ministries.contact_email`), never to the newcomer.
extension NotificationSubject {
    /// How many fitting groups a newcomer's entry lists, fewest members first.
    static let suggestedGroups = 3

    /// The fields of a newcomer message's template.
    static let newcomerFields: [String: TemplateSchema.Field] = [
        "ministry_name": .value, "name": .value, "first_name": .value, "email": .value, "phone": .value,
        "school_year": .value, "walk_in": .section([:]), "event_name": .value, "event_starts": .value,
        "groups": .section(["name": .value, "meets": .value, "members": .value]),
    ]

    static func newcomerNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        let rows = try connection.query("""
            select n.id, n.kind, mi.id, mi.name, mi.contact_email, s.*, p.school_year, p.sex, p.origin = 'check-in',
                   e.name, to_char(e.starts_at at time zone e.timezone, 'FMDay, FMMonth FMDD "at" HH24:MI')
            from notifications n
            join ministries mi on mi.id = n.ministry_id
            join attendance a on a.id = n.attendance_id
            join events e on e.id = a.event_id
            join people p on p.id = a.person_id
            cross join \(PersonContact.of("a.person_id")) s
            where n.id = any(\(ids)::bigint[]) and mi.contact_email is not null
            order by n.id
            """).rows
        guard !rows.isEmpty else { return [] }
        let groups = try PlaceGroup.inUse(connection: connection)
        return try rows.compactMap { row in
            let (id, kindName, ministry, ministryName, contact, person, year, sex, walkIn, event, starts) = try row.decode(
                (Int, String, String, String, String, PersonContact, Int?, String?, Bool?, String, String).self)
            guard let kind = NotificationKind.named(kindName) else { return nil }
            var fields: [String: Any] = [
                "ministry_name": ministryName, "name": person.name, "first_name": person.firstName,
                "walk_in": walkIn == true, "event_name": event, "event_starts": starts,
                "groups": PlaceGroup.fitting(groups, ministry: ministry, sex: sex, year: year)
                    .prefix(suggestedGroups).map { group -> [String: Any] in
                        let meets = PeopleText.meeting(day: group.day?.name, time: group.time, location: group.location)
                        return ["name": group.name, "members": String(group.members)].merging(
                            meets.isEmpty ? [:] : ["meets": meets]) { $1 }
                    },
            ]
            // A walk-in's key is no address: the phone is how to reach them.
            if walkIn != true { fields["email"] = person.email }
            fields["phone"] = person.phone
            fields["school_year"] = PeopleText.schoolYear(year)
            return Notice(id: id, kind: kind, recipient: EmailAddress(contact, name: ministryName + " staff"),
                          optedOut: false, replyTo: nil, fields: fields)
        }
    }
}
