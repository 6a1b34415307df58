import PostgresClient

/// Who a roster is for: people (human headers, one leader block per group, phones and years as
/// people write them) or machines (one flat row per member, the columns a script joins on).
public enum RosterAudience: String, Sendable, CaseIterable {
    case people, machines
}

/// One group's roster as people read it: the group, when and where it meets, its leaders and its
/// members, every value already in the form people write it.
struct PeopleRoster {
    struct Leader {
        let name: String
        let email: String
        let phone: String
    }

    struct Member {
        let firstName: String
        let lastName: String
        let email: String
        let phone: String
        let year: String
        /// The day the member joined, in the campus's time zone.
        let joined: (year: Int, month: Int, day: Int)?

        var joinedText: String {
            joined.map { "\($0.year)-\(CellNormalizer.twoDigits($0.month))-\(CellNormalizer.twoDigits($0.day))" } ?? ""
        }
    }

    let code: String
    let name: String
    let ministry: String
    /// `Tuesdays at 19:00, Dexter Lawn`; empty when nothing is known.
    let meeting: String
    let leaders: [Leader]
    let members: [Member]

    /// The member table's headers.
    static let headers = ["First name", "Last name", "Email", "Phone", "Year", "Joined"]

    /// The lines above the member table: the group, its ministry, when and where it meets, and a
    /// line per leader with their contacts.
    var titleBlock: [[String]] {
        [["Group", "\(name) (\(code))"], ["Ministry", ministry]]
            + (meeting.isEmpty ? [] : [["Meets", meeting]])
            + leaders.map { ["Leader", $0.name, $0.email, $0.phone] }
    }

    /// The cells of a member's row, in the headers' order (Joined as text).
    func cells(of member: Member) -> [String] {
        [member.firstName, member.lastName, member.email, member.phone, member.year, member.joinedText]
    }

    /// Each group in use of a scope in code order, with its current members, read one group at a time
    /// so memory holds one roster.
    static func forEachGroup(_ scope: ExportScope, connection: PostgresConnection, _ body: (PeopleRoster) throws -> Void) throws {
        let groups = try connection.query("""
            select g.id, g.code, g.name, mi.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location, c.timezone
            from community_groups g join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
            where \(scope.condition) and \(unescaped: KindCatalog.groupInUse) order by g.code
            """).rows
        for group in groups {
            let id = try group.decode(Int.self, 0)
            let leaders = try connection.query("""
                select l.first_name || ' ' || l.last_name, l.email, l.phone
                from group_leaders gl join people l on l.id = gl.person_id where gl.group_id = \(id) order by gl.position, l.email
                """).rows.map { row in
                    Leader(name: try row.decode(String.self, 0), email: try row.decode(String.self, 1),
                           phone: PeopleText.phone(try row.decode(String?.self, 2)))
                }
            let members = try connection.query("""
                select p.first_name, p.last_name, p.email, p.phone, p.school_year,
                       to_char(m.joined_at at time zone \(try group.decode(String.self, 7)), 'YYYY-MM-DD')
                from memberships m join people p on p.id = m.person_id
                where m.group_id = \(id) and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))
                order by p.last_name, p.first_name, p.email
                """).rows.map { row in
                    Member(firstName: try row.decode(String.self, 0), lastName: try row.decode(String.self, 1),
                           email: try row.decode(String.self, 2), phone: PeopleText.phone(try row.decode(String?.self, 3)),
                           year: yearText(try row.decode(Int?.self, 4)), joined: calendarDay(try row.decode(String.self, 5)))
                }
            try body(PeopleRoster(
                code: try group.decode(String.self, 1), name: try group.decode(String.self, 2),
                ministry: try group.decode(String.self, 3),
                meeting: PeopleText.meeting(day: try group.decode(String?.self, 4), time: try group.decode(String?.self, 5),
                                     location: try group.decode(String?.self, 6)),
                leaders: leaders, members: members))
        }
    }

    /// 1 Freshman ... 5 Fifth year / graduate.
    static func yearText(_ year: Int?) -> String {
        guard let name = PeopleText.schoolYear(year) else { return "" }
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    private static func calendarDay(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        return parts.count == 3 ? (parts[0], parts[1], parts[2]) : nil
    }
}
