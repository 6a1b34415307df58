import Foundation
import Mailer
import MessageTemplates
import PostgresClient

/// A notification with everything its message needs: who receives it, whom replies reach, and
/// the fields its template reads. It holds the data of the one person it is about, never another's.
struct Notice {
    let id: Int
    let kind: NotificationKind
    let recipient: EmailAddress
    let optedOut: Bool
    let replyTo: EmailAddress?
    /// The template's context: values as strings, lists as `[[String: Any]]`; a value not known is absent.
    let fields: [String: Any]
}

extension PersonContact {
    /// The person as a mailbox: `First Last <email>`.
    var mailbox: EmailAddress { EmailAddress(email, name: name) }
}

/// What a notification is about: the table its nullable reference points at. A subject reads
/// the facts of its notifications in one query.
enum NotificationSubject: String, CaseIterable, Sendable {
    /// A student's membership of a group (`membership_id`).
    case membership
    /// One seat of one car on one leg (`ride_pairing_id`).
    case ridePairing
    /// Someone's check-in at an event (`attendance_id`).
    case attendance

    /// The column of `notifications` that names it.
    var column: String {
        switch self {
        case .membership: "membership_id"
        case .ridePairing: "ride_pairing_id"
        case .attendance: "attendance_id"
        }
    }

    /// The table it is a row of.
    var table: String {
        switch self {
        case .membership: "memberships"
        case .ridePairing: "ride_pairings"
        case .attendance: "attendance"
        }
    }

    /// The fields a template of a kind about this subject may name.
    var fields: [String: TemplateSchema.Field] {
        switch self {
        case .membership:
            ["student_name": .value, "student_first_name": .value, "student_email": .value, "student_phone": .value,
             "school_year": .value, "group_name": .value, "meeting_day": .value, "meeting_time": .value,
             "location": .value, "meets": .value, "reply_to_name": .value,
             "leaders": .section(["name": .value, "first_name": .value, "email": .value, "phone": .value])]
        case .ridePairing: Self.rideFields
        case .attendance: Self.newcomerFields
        }
    }

    /// The notices of the notifications `ids` (all about this subject), in id order. A
    /// notification whose subject is gone has none.
    func notices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        switch self {
        case .membership: try Self.membershipNotices(ids, connection: connection)
        case .ridePairing: try Self.rideNotices(ids, connection: connection)
        case .attendance: try Self.newcomerNotices(ids, connection: connection)
        }
    }

    private static func membershipNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        try connection.query("""
            select n.id, n.kind, r.*, rp.notifications_opt_out, s.*, sp.school_year,
                   g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location,
                   (select coalesce(json_agg(l order by gl.position, l.email), '[]')
                    from group_leaders gl cross join \(PersonContact.of("gl.person_id")) l
                    where gl.group_id = g.id)::text
            from notifications n
            join people rp on rp.id = n.recipient_id
            cross join \(PersonContact.of("n.recipient_id")) r
            join memberships m on m.id = n.membership_id
            join people sp on sp.id = m.person_id
            cross join \(PersonContact.of("m.person_id")) s
            join community_groups g on g.id = m.group_id
            where n.id = any(\(ids)::bigint[])
            order by n.id
            """).rows.compactMap { row in
            let (id, kindName, recipient, optedOut, student, year, group, day, time, location, leadersJSON) =
                try row.decode((Int, String, PersonContact, Bool, PersonContact, Int?,
                                String, String?, String?, String?, String).self)
            guard let kind = NotificationKind.named(kindName) else { return nil }
            let leaders = try JSONDecoder().decode([PersonContact].self, from: Data(leadersJSON.utf8))
                        let replyTo: EmailAddress?
            var fields: [String: Any] = [
                "student_name": student.name, "student_first_name": student.firstName,
                "student_email": student.email,
                "group_name": group,
                "leaders": leaders.map { leader -> [String: Any] in
                    ["name": leader.name, "first_name": leader.firstName, "email": leader.email,
                     "phone": leader.phone ?? ""].filter { !$0.value.isEmpty }
                },
            ]
            if kind.recipient == .leader {
                fields["leader_first_name"] = recipient.firstName
                replyTo = student.mailbox
            } else {
                replyTo = leaders.first?.mailbox
            }
            fields["reply_to_name"] = replyTo?.name
            fields["student_phone"] = student.phone
            fields["school_year"] = PeopleText.schoolYear(year)
            fields["meeting_day"] = day
            fields["meeting_time"] = time
            fields["location"] = location
            let meets = PeopleText.meeting(day: day, time: time, location: location)
            fields["meets"] = meets.isEmpty ? nil : meets
            return Notice(id: id, kind: kind, recipient: recipient.mailbox,
                          optedOut: optedOut, replyTo: replyTo, fields: fields)
        }
    }
}
