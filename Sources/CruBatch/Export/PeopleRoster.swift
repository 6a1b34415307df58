import PostgresClient

/// Who a roster is for: people (human headers, one leader block per group, phones and years as
/// people write them) or machines (one flat row per member, the columns a script joins on).
public enum RosterAudience: String, Sendable, CaseIterable {
    case people, machines
}

/// One group's roster as people read it: the group, when and where it meets, its leaders and its
/// members, every value already in the form people write it.
struct PeopleRoster {
    struct Member: PostgresRowDecodable {
        let contact: PersonContact
        let year: String
        /// How many of the campus's events they came to this term (nil: no term is current).
        let eventsThisTerm: Int?
        /// The day the member joined, in the campus's time zone.
        let joined: (year: Int, month: Int, day: Int)?

        var joinedText: String {
            joined.map { "\($0.year)-\(CellNormalizer.twoDigits($0.month))-\(CellNormalizer.twoDigits($0.day))" } ?? ""
        }

        init(cells: inout PostgresCells) throws(PostgresError) {
            contact = try PersonContact(cells: &cells)
            year = yearText(try cells.next(Int?.self))
            eventsThisTerm = try cells.next(Int?.self)
            joined = calendarDay(try cells.next(String.self))
        }
    }

    let code: String
    let name: String
    let ministry: String
    /// `Tuesdays at 19:00, Dexter Lawn`; empty when nothing is known.
    let meeting: String
    let leaders: [PersonContact]
    let members: [Member]

    /// The member table's headers.
    static let headers = ["First name", "Last name", "Email", "Phone", "Year", "Events this term", "Joined"]

    /// The lines above the member table: the group, its ministry, when and where it meets, and a
    /// line per leader with their contacts.
    var titleBlock: [[String]] {
        [["Group", "\(name) (\(code))"], ["Ministry", ministry]]
            + (meeting.isEmpty ? [] : [["Meets", meeting]])
            + leaders.map { ["Leader", $0.name, $0.email, $0.phone ?? ""] }
    }

    /// The cells of a member's row, in the headers' order (Joined, last, as text).
    func cells(of member: Member) -> [String] {
        let contact = member.contact
        return [contact.firstName, contact.lastName, contact.email, contact.phone ?? "", member.year,
                member.eventsThisTerm.map(String.init) ?? "", member.joinedText]
    }

    /// Each group in use of a scope in code order, with its current members, read one group at a time
    /// so memory holds one roster.
    static func forEachGroup(_ scope: ExportScope, connection: PostgresConnection, _ body: (PeopleRoster) throws -> Void) throws {
        let groups = try connection.query("""
            select g.id, g.code, g.name, mi.name, g.meeting_day, to_char(g.meeting_time, 'HH24:MI'), g.location, c.timezone, c.id
            from community_groups g join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
            where \(scope.condition) and \(unescaped: KindCatalog.groupInUse) order by g.code
            """).rows
        for group in groups {
            let (id, code, name, ministry, day, time, location, timezone, campus) =
                try group.decode((Int, String, String, String, String?, String?, String?, String, Int).self)
            let leaders = try connection.query("""
                select l.* from group_leaders gl cross join \(PersonContact.of("gl.person_id")) l
                where gl.group_id = \(id) order by gl.position, l.email
                """).rows.map { row throws(PostgresError) in try row.decode(PersonContact.self) }
            let members = try connection.query("""
                select c.*, p.school_year, \(unescaped: AttendanceStamps.thisTerm(person: "p.id", campus: "\(campus)")),
                       to_char(m.joined_at at time zone \(timezone), 'YYYY-MM-DD')
                from memberships m join people p on p.id = m.person_id cross join \(PersonContact.of("p.id")) c
                where m.group_id = \(id) and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))
                order by p.last_name, p.first_name, p.email
                """).rows.map { row throws(PostgresError) in try row.decode(Member.self) }
            try body(PeopleRoster(code: code, name: name, ministry: ministry,
                                  meeting: PeopleText.meeting(day: day, time: time, location: location),
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
