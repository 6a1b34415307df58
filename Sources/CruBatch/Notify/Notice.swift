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

/// What a notification is about: the table its nullable foreign key points at. A subject reads
/// the facts of its notifications in one query.
enum NotificationSubject: String, CaseIterable, Sendable {
    /// A student's membership of a group (`membership_id`).
    case membership
    /// One seat of one car on one leg (`ride_pairing_id`).
    case ridePairing

    /// The column of `notifications` that names it.
    var column: String {
        switch self {
        case .membership: "membership_id"
        case .ridePairing: "ride_pairing_id"
        }
    }

    /// The table it is a row of.
    var table: String {
        switch self {
        case .membership: "memberships"
        case .ridePairing: "ride_pairings"
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
        }
    }

    /// The notices of the notifications `ids` (all about this subject), in id order. A
    /// notification whose subject is gone has none.
    func notices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        switch self {
        case .membership: try Self.membershipNotices(ids, connection: connection)
        case .ridePairing: try Self.rideNotices(ids, connection: connection)
        }
    }

    /// One contact as the leaders' list of a notice holds it.
    private struct Leader: Decodable {
        let name: String
        let firstName: String
        let email: String
        let phone: String?

        enum CodingKeys: String, CodingKey {
            case name, email, phone
            case firstName = "first_name"
        }
    }

    private static func membershipNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        try connection.query("""
            select n.id, n.kind, r.first_name, r.first_name || ' ' || r.last_name, r.email, r.notifications_opt_out,
                   s.first_name, s.first_name || ' ' || s.last_name, s.email, s.phone, s.school_year,
                   g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location,
                   (select coalesce(json_agg(json_build_object('name', l.first_name || ' ' || l.last_name,
                                                               'first_name', l.first_name, 'email', l.email,
                                                               'phone', l.phone)
                                             order by gl.position, l.email), '[]')
                    from group_leaders gl join people l on l.id = gl.person_id where gl.group_id = g.id)::text
            from notifications n
            join people r on r.id = n.recipient_id
            join memberships m on m.id = n.membership_id
            join people s on s.id = m.person_id
            join community_groups g on g.id = m.group_id
            where n.id = any(\(ids)::bigint[])
            order by n.id
            """).rows.compactMap { row in
            guard let kind = NotificationKind.named(try row.decode(String.self, 1)) else { return nil }
            let leaders = try JSONDecoder().decode([Leader].self, from: Data(try row.decode(String.self, 15).utf8))
            let student = EmailAddress(try row.decode(String.self, 8), name: try row.decode(String.self, 7))
            let day = try row.decode(String?.self, 12), time = try row.decode(String?.self, 13)
            let location = try row.decode(String?.self, 14)
            let replyTo: EmailAddress?
            var fields: [String: Any] = [
                "student_name": student.name ?? "", "student_first_name": try row.decode(String.self, 6),
                "student_email": student.address,
                "group_name": try row.decode(String.self, 11),
                "leaders": leaders.map { leader -> [String: Any] in
                    ["name": leader.name, "first_name": leader.firstName, "email": leader.email,
                     "phone": PeopleText.phone(leader.phone)].filter { !$0.value.isEmpty }
                },
            ]
            if kind.recipient == .leader {
                fields["leader_first_name"] = try row.decode(String.self, 2)
                replyTo = student
            } else {
                replyTo = leaders.first.map { EmailAddress($0.email, name: $0.name) }
            }
            fields["reply_to_name"] = replyTo?.name
            fields["student_phone"] = try row.decode(String?.self, 9).map { PeopleText.phone($0) }
            fields["school_year"] = PeopleText.schoolYear(try row.decode(Int?.self, 10))
            fields["meeting_day"] = day
            fields["meeting_time"] = time
            fields["location"] = location
            let meets = PeopleText.meeting(day: day, time: time, location: location)
            fields["meets"] = meets.isEmpty ? nil : meets
            return Notice(id: try row.decode(Int.self, 0), kind: kind,
                          recipient: EmailAddress(try row.decode(String.self, 4), name: try row.decode(String.self, 3)),
                          optedOut: try row.decode(Bool.self, 5), replyTo: replyTo, fields: fields)
        }
    }
}
