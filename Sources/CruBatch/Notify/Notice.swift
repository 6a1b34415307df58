import Foundation
import Mailer
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

    /// The column of `notifications` that names it.
    var column: String {
        switch self {
        case .membership: "membership_id"
        }
    }

    /// The notices of the notifications `ids` (all about this subject), in id order. A
    /// notification whose subject is gone has none.
    func notices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        switch self {
        case .membership: try Self.membershipNotices(ids, connection: connection)
        }
    }

    /// One contact as the leaders' list of a notice holds it.
    private struct Leader: Decodable {
        let name: String
        let email: String
        let phone: String?
    }

    private static func membershipNotices(_ ids: [Int], connection: PostgresConnection) throws -> [Notice] {
        try connection.query("""
            select n.id, n.kind, r.first_name, r.first_name || ' ' || r.last_name, r.email, r.notifications_opt_out,
                   s.first_name, s.first_name || ' ' || s.last_name, s.email, s.phone, s.school_year,
                   g.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location,
                   (select coalesce(json_agg(json_build_object('name', l.first_name || ' ' || l.last_name,
                                                               'email', l.email, 'phone', l.phone)
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
            var fields: [String: Any] = [
                "first_name": try row.decode(String.self, 2),
                "student_name": student.name ?? "", "student_first_name": try row.decode(String.self, 6),
                "student_email": student.address,
                "group_name": try row.decode(String.self, 11),
                "leaders": leaders.map { leader -> [String: Any] in
                    ["name": leader.name, "email": leader.email, "phone": PeopleText.phone(leader.phone)]
                        .filter { !$0.value.isEmpty }
                },
            ]
            fields["student_phone"] = try row.decode(String?.self, 9).map { PeopleText.phone($0) }
            fields["school_year"] = PeopleText.schoolYear(try row.decode(Int?.self, 10))
            fields["day"] = day
            fields["time"] = time
            fields["location"] = location
            let meeting = PeopleText.meeting(day: day, time: time, location: location)
            fields["meeting"] = meeting.isEmpty ? nil : meeting
            let replyTo: EmailAddress?
            switch kind.replyTo {
            case .student: replyTo = student
            case .firstLeader: replyTo = leaders.first.map { EmailAddress($0.email, name: $0.name) }
            }
            return Notice(id: try row.decode(Int.self, 0), kind: kind,
                          recipient: EmailAddress(try row.decode(String.self, 4), name: try row.decode(String.self, 3)),
                          optedOut: try row.decode(Bool.self, 5), replyTo: replyTo, fields: fields)
        }
    }
}
