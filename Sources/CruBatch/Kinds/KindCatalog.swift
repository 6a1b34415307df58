/// The ten kinds' formats (DESIGN.md section 3) and how each maps onto the data model (section 5).
enum KindCatalog {
    static let specs: [Kind: KindSpec] = Dictionary(uniqueKeysWithValues: [
        campuses, ministries, leaders, students, teams, groups, memberships, events, missions, resources,
    ].map { ($0.kind, $0) })

    private static func campusReference(_ column: String = "campus") -> ReferenceSpec {
        ReferenceSpec(column: column, table: "campuses", keyExpression: "r.code", noun: "campus", definedIn: .campuses)
    }

    private static func ministryReference(_ column: String = "ministry") -> ReferenceSpec {
        ReferenceSpec(column: column, table: "ministries", keyExpression: "r.code", noun: "ministry", definedIn: .ministries)
    }

    private static let leaderReference = ReferenceSpec(
        column: "leaders", table: "people", keyExpression: "lower(r.email)", condition: "r.is_leader",
        noun: "leader", definedIn: .leaders)

    private static func leaderList(_ childTable: String, parent: String) -> ListRelation {
        ListRelation(column: "leaders", childTable: childTable, parentColumn: parent, valueColumn: "person_id",
                     referencedTable: "people", referencedKey: "lower(r.email)")
    }

    /// `string_agg` of a list relation for export, in stored order.
    private static func listExport(_ expression: String, from: String, order: String) -> String {
        "(select string_agg(\(expression), ';' order by \(order)) from \(from))"
    }

    static let campuses = KindSpec(
        kind: .campuses,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("name", .text, required: true),
            ColumnSpec("city", .text), ColumnSpec("state", .text), ColumnSpec("country", .text),
            ColumnSpec("timezone", .timezone), ColumnSpec("url", .url), ColumnSpec("calendar_url", .url),
            ColumnSpec("map_url", .url),
        ],
        table: "campuses", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: "select s.line, s.code, s.name, s.city, s.state, s.country, s.timezone, s.url, s.calendar_url, s.map_url from stage s",
        targetColumns: [
            TargetColumn(name: "name"), TargetColumn(name: "city"), TargetColumn(name: "state"),
            TargetColumn(name: "country", insertDefault: "'US'"),
            TargetColumn(name: "timezone", insertDefault: "'America/Los_Angeles'"),
            TargetColumn(name: "url"), TargetColumn(name: "calendar_url"), TargetColumn(name: "map_url"),
        ],
        references: [], lists: [],
        exportSQL: "select code, name, city, state, country, timezone, url, calendar_url, map_url from campuses order by code")

    static let ministries = KindSpec(
        kind: .ministries,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("name", .text, required: true),
            ColumnSpec("campus", .code, required: true), ColumnSpec("description", .text), ColumnSpec("url", .url),
        ],
        table: "ministries", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: """
            select s.line, s.code, s.name, c.id as campus_id, s.description, s.url
            from stage s left join campuses c on c.code = s.campus
            """,
        targetColumns: [TargetColumn(name: "name"), TargetColumn(name: "campus_id"), TargetColumn(name: "description"),
                        TargetColumn(name: "url")],
        references: [campusReference()], lists: [],
        exportSQL: """
            select m.code, m.name, c.code as campus, m.description, m.url
            from ministries m join campuses c on c.id = m.campus_id order by m.code
            """)

    private static let personColumns = [
        ColumnSpec("email", .email, required: true), ColumnSpec("first_name", .text, required: true),
        ColumnSpec("last_name", .text, required: true),
    ]

    static let leaders = KindSpec(
        kind: .leaders,
        columns: personColumns + [
            ColumnSpec("phone", .phone, required: true), ColumnSpec("sex", .personSex), ColumnSpec("campus", .code),
            ColumnSpec("staff_role", .choice(["staff", "intern", "student"]), aliases: ["role"]),
        ],
        table: "people", keyColumns: ["email"], keyMatch: "lower(t.email) = n.email", stagedKey: "s.email",
        resolveSQL: """
            select s.line, s.email, s.first_name, s.last_name, s.phone, s.sex, c.id as campus_id, s.staff_role,
                   true as is_leader, s.staff_role in ('staff', 'intern') as is_staff
            from stage s left join campuses c on c.code = s.campus
            """,
        targetColumns: [
            TargetColumn(name: "first_name"), TargetColumn(name: "last_name"), TargetColumn(name: "phone"),
            TargetColumn(name: "sex"), TargetColumn(name: "campus_id"), TargetColumn(name: "staff_role"),
            TargetColumn(name: "is_leader", insertDefault: "false"), TargetColumn(name: "is_staff", insertDefault: "false"),
        ],
        references: [campusReference()], lists: [],
        exportSQL: """
            select p.email, p.first_name, p.last_name, p.phone, p.sex, c.code as campus, p.staff_role
            from people p left join campuses c on c.id = p.campus_id where p.is_leader order by p.email
            """)

    static let students = KindSpec(
        kind: .students,
        columns: personColumns + [
            ColumnSpec("phone", .phone), ColumnSpec("sex", .personSex), ColumnSpec("school_year", .schoolYear),
            ColumnSpec("grad_year", .gradYear, aliases: ["graduation year", "graduation_year"]),
            ColumnSpec("campus", .code), ColumnSpec("ministries", .list(.code)),
        ],
        table: "people", keyColumns: ["email"], keyMatch: "lower(t.email) = n.email", stagedKey: "s.email",
        resolveSQL: """
            select s.line, s.email, s.first_name, s.last_name, s.phone, s.sex, s.school_year, s.grad_year,
                   c.id as campus_id, s.ministries
            from stage s left join campuses c on c.code = s.campus
            """,
        targetColumns: [
            TargetColumn(name: "first_name"), TargetColumn(name: "last_name"), TargetColumn(name: "phone"),
            TargetColumn(name: "sex"), TargetColumn(name: "school_year"), TargetColumn(name: "grad_year"),
            TargetColumn(name: "campus_id"),
        ],
        references: [campusReference(), ministryReference("ministries")],
        lists: [ListRelation(column: "ministries", childTable: "person_ministries", parentColumn: "person_id",
                             valueColumn: "ministry_id", referencedTable: "ministries", referencedKey: "r.code")],
        exportSQL: """
            select p.email, p.first_name, p.last_name, p.phone, p.sex, p.school_year, p.grad_year, c.code as campus,
                   \(listExport("m.code", from: "person_ministries pm join ministries m on m.id = pm.ministry_id where pm.person_id = p.id", order: "pm.position, m.code")) as ministries
            from people p left join campuses c on c.id = p.campus_id where not p.is_leader order by p.email
            """)

    static let teams = KindSpec(
        kind: .teams,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("ministry", .code, required: true),
            ColumnSpec("name", .text, required: true), ColumnSpec("description", .text),
            ColumnSpec("leaders", .list(.email)),
        ],
        table: "ministry_teams", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: """
            select s.line, s.code, m.id as ministry_id, s.name, s.description, s.leaders
            from stage s left join ministries m on m.code = s.ministry
            """,
        targetColumns: [TargetColumn(name: "ministry_id"), TargetColumn(name: "name"), TargetColumn(name: "description")],
        references: [ministryReference(), leaderReference],
        lists: [leaderList("team_leaders", parent: "team_id")],
        exportSQL: """
            select t.code, m.code as ministry, t.name, t.description,
                   \(listExport("p.email", from: "team_leaders tl join people p on p.id = tl.person_id where tl.team_id = t.id", order: "tl.position, p.email")) as leaders
            from ministry_teams t join ministries m on m.id = t.ministry_id order by t.code
            """)

    static let groups = KindSpec(
        kind: .groups,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("ministry", .code, required: true),
            ColumnSpec("name", .text, required: true), ColumnSpec("day", .day), ColumnSpec("time", .time),
            ColumnSpec("location", .text), ColumnSpec("audience", .audience, aliases: ["type"]),
            ColumnSpec("sex", .groupSex), ColumnSpec("capacity", .positiveInt, aliases: ["size", "max members"]),
            ColumnSpec("leaders", .list(.email), required: true), ColumnSpec("description", .text),
        ],
        table: "community_groups", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: """
            select s.line, s.code, m.id as ministry_id, s.name, s.day as meeting_day, s.time as meeting_time,
                   s.location, s.audience, s.sex, s.capacity, s.description, s.leaders
            from stage s left join ministries m on m.code = s.ministry
            """,
        targetColumns: [
            TargetColumn(name: "ministry_id"), TargetColumn(name: "name"), TargetColumn(name: "meeting_day"),
            TargetColumn(name: "meeting_time"), TargetColumn(name: "location"), TargetColumn(name: "audience"),
            TargetColumn(name: "sex"), TargetColumn(name: "capacity"), TargetColumn(name: "description"),
        ],
        references: [ministryReference(), leaderReference],
        lists: [leaderList("group_leaders", parent: "group_id")],
        exportSQL: """
            select g.code, m.code as ministry, g.name, g.meeting_day as day, to_char(g.meeting_time, 'HH24:MI') as time,
                   g.location, g.audience, g.sex, g.capacity,
                   \(listExport("p.email", from: "group_leaders gl join people p on p.id = gl.person_id where gl.group_id = g.id", order: "gl.position, p.email")) as leaders,
                   g.description
            from community_groups g join ministries m on m.id = g.ministry_id order by g.code
            """)

    static let memberships = KindSpec(
        kind: .memberships,
        columns: [
            ColumnSpec("group", .code, required: true, aliases: ["group code", "community group"]),
            ColumnSpec("email", .email, required: true), ColumnSpec("joined_at", .dateTime, aliases: ["joined"]),
            ColumnSpec("status", .choice(["active", "pending"])),
        ],
        table: "memberships", keyColumns: ["group_id", "person_id"],
        keyMatch: "t.group_id = n.group_id and t.person_id = n.person_id", stagedKey: "s.\"group\" || ', ' || s.email",
        resolveSQL: """
            select s.line, g.id as group_id, p.id as person_id, s.status, s.joined_at::timestamptz as joined_at,
                   'import' as source
            from stage s join community_groups g on g.code = s."group" join people p on lower(p.email) = s.email
            """,
        targetColumns: [
            TargetColumn(name: "status", insertDefault: "'active'"), TargetColumn(name: "joined_at", insertDefault: "now()"),
            TargetColumn(name: "source", insertDefault: "'import'", updatable: false),
        ],
        references: [
            ReferenceSpec(column: "group", table: "community_groups", keyExpression: "r.code", noun: "group", definedIn: .groups),
            ReferenceSpec(column: "email", table: "people", keyExpression: "lower(r.email)", noun: "student", definedIn: .students),
        ],
        lists: [],
        exportSQL: """
            select g.code as "group", p.email, to_char(ms.joined_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as joined_at,
                   ms.status
            from memberships ms join community_groups g on g.id = ms.group_id join people p on p.id = ms.person_id
            order by g.code, p.email
            """)

    /// Local date-time text plus time zone to an instant; text with an offset is taken as it is.
    private static func instant(_ column: String) -> String {
        "case when s.\(column) ~ '(Z|[+-][0-9][0-9]:[0-9][0-9])$' then s.\(column)::timestamptz else s.\(column)::timestamp at time zone coalesce(s.timezone, e.timezone, 'America/Los_Angeles') end"
    }

    private static func localText(_ column: String) -> String {
        "to_char(ev.\(column) at time zone ev.timezone, 'YYYY-MM-DD\"T\"HH24:MI:SS')"
    }

    static let events = KindSpec(
        kind: .events,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("name", .text, required: true),
            ColumnSpec("starts_at", .dateTime, required: true, aliases: ["start", "starts", "start date"]),
            ColumnSpec("ends_at", .dateTime, aliases: ["end", "ends", "end date"]), ColumnSpec("timezone", .timezone),
            ColumnSpec("location", .text), ColumnSpec("ministries", .list(.code)),
            ColumnSpec("rideshare", .bool, aliases: ["ride sharing", "ridesharing"]), ColumnSpec("url", .url),
            ColumnSpec("description", .text),
        ],
        table: "events", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: """
            select s.line, s.code, s.name, \(instant("starts_at")) as starts_at, \(instant("ends_at")) as ends_at,
                   s.timezone, s.location, s.rideshare, s.url, s.description, s.ministries
            from stage s left join events e on e.code = s.code
            """,
        targetColumns: [
            TargetColumn(name: "name"), TargetColumn(name: "starts_at"), TargetColumn(name: "ends_at"),
            TargetColumn(name: "timezone", insertDefault: "'America/Los_Angeles'"), TargetColumn(name: "location"),
            TargetColumn(name: "rideshare", insertDefault: "false"), TargetColumn(name: "url"),
            TargetColumn(name: "description"),
        ],
        references: [ministryReference("ministries")],
        lists: [ListRelation(column: "ministries", childTable: "event_ministries", parentColumn: "event_id",
                             valueColumn: "ministry_id", referencedTable: "ministries", referencedKey: "r.code")],
        exportSQL: """
            select ev.code, ev.name, \(localText("starts_at")) as starts_at, \(localText("ends_at")) as ends_at,
                   ev.timezone, ev.location,
                   \(listExport("m.code", from: "event_ministries em join ministries m on m.id = em.ministry_id where em.event_id = ev.id", order: "em.position, m.code")) as ministries,
                   case when ev.rideshare then 'yes' else 'no' end as rideshare, ev.url, ev.description
            from events ev order by ev.code
            """)

    static let missions = KindSpec(
        kind: .missions,
        columns: [
            ColumnSpec("code", .code, required: true), ColumnSpec("name", .text, required: true),
            ColumnSpec("starts_on", .date, required: true, aliases: ["start", "start date"]),
            ColumnSpec("ends_on", .date, required: true, aliases: ["end", "end date"]),
            ColumnSpec("location", .text, required: true), ColumnSpec("cost", .money), ColumnSpec("leaders", .text),
            ColumnSpec("url", .url), ColumnSpec("description", .text),
        ],
        table: "summer_missions", keyColumns: ["code"], keyMatch: "t.code = n.code", stagedKey: "s.code",
        resolveSQL: """
            select s.line, s.code, s.name, s.starts_on, s.ends_on, s.location, s.cost, s.leaders, s.url, s.description
            from stage s
            """,
        targetColumns: ["name", "starts_on", "ends_on", "location", "cost", "leaders", "url", "description"]
            .map { TargetColumn(name: $0) },
        references: [], lists: [],
        exportSQL: """
            select code, name, starts_on, ends_on, location, cost, leaders, url, description
            from summer_missions order by code
            """)

    static let resources = KindSpec(
        kind: .resources,
        columns: [
            ColumnSpec("url", .url, required: true), ColumnSpec("title", .text, required: true),
            ColumnSpec("type", .choice(["article", "video", "audio", "guide"])), ColumnSpec("author", .text),
            ColumnSpec("published_on", .date, aliases: ["date", "published"]), ColumnSpec("topics", .list(.text), aliases: ["tags"]),
            ColumnSpec("leaders_only", .bool, aliases: ["restricted"]), ColumnSpec("description", .text),
        ],
        table: "resources", keyColumns: ["url"], keyMatch: "t.url = n.url", stagedKey: "s.url",
        resolveSQL: """
            select s.line, s.url, s.title, s.type, s.author, s.published_on, s.leaders_only, s.description, s.topics
            from stage s
            """,
        targetColumns: [
            TargetColumn(name: "title"), TargetColumn(name: "type"), TargetColumn(name: "author"),
            TargetColumn(name: "published_on"), TargetColumn(name: "leaders_only", insertDefault: "false"),
            TargetColumn(name: "description"),
        ],
        references: [],
        lists: [ListRelation(column: "topics", childTable: "resource_topics", parentColumn: "resource_id",
                             valueColumn: "topic", referencedTable: nil, referencedKey: "")],
        exportSQL: """
            select rs.url, rs.title, rs.type, rs.author, rs.published_on,
                   \(listExport("rt.topic", from: "resource_topics rt where rt.resource_id = rs.id", order: "rt.position, rt.topic")) as topics,
                   case when rs.leaders_only then 'yes' else 'no' end as leaders_only, rs.description
            from resources rs order by rs.url
            """)
}
