import PostgresClient

/// The kinds' CSV formats and how each maps onto the data model: one declaration per column.
enum KindCatalog {
    static func spec(_ kind: Kind) -> KindSpec {
        switch kind {
        case .campuses: campuses
        case .ministries: ministries
        case .leaders: leaders
        case .students: students
        case .teams: teams
        case .groups: groups
        case .memberships: memberships
        case .events: events
        case .missions: missions
        case .resources: resources
        case .terms: terms
        case .rideOffers: rideOffers
        case .rideRequests: rideRequests
        case .attendance: attendance
        }
    }

    private static func leaderList(_ childTable: String, parent: String, required: Bool = false) -> ColumnSpec {
        ColumnSpec("leaders", .list(.email), required: required, list: ListRelation(
            childTable: childTable, parentColumn: parent, valueColumn: "person_id", reference: .leader))
    }

    private static func ministryList(_ childTable: String, parent: String, nameScope: String? = nil) -> ColumnSpec {
        ColumnSpec("ministries", .list(.reference), list: ListRelation(
            childTable: childTable, parentColumn: parent, valueColumn: "ministry_id", reference: .ministry),
                   nameScope: nameScope)
    }

    /// The default zone in SQL, for column defaults.
    private static let defaultZone = SQLFragment(literal: TimeZoneNames.defaultZone)

    /// How a membership ends: its status becomes `left` (and the database stamps `ended_at`).
    static let membershipEnd = Retirement.end(column: "status", value: "left")

    /// SQL over a group `g`, its ministry `mi` and its campus `c`: a group in use, which neither it, its
    /// ministry nor its campus is archived. Archived groups are kept for history only: rosters,
    /// calendars and placement leave them out.
    static let groupInUse = SQLFragment(
        joining: (["g", "mi", "c"] as [SQLFragment]).map(Retirement.archive.isCurrent(over:)), separator: " and ")

    /// Header names that the columns holding the same thing share across kinds (listed in
    /// docs/guide/file-formats.md), given where each such column is declared.
    private enum Aliases {
        static let sex = ["gender"]
        static let email = ["e-mail", "email address", "e-mail address", "mail"]
        static let phone = ["phone number", "mobile", "cell", "cell phone", "mobile phone", "telephone"]
        static let firstName = ["first", "given name", "firstname", "first name"]
        static let lastName = ["last", "surname", "family name", "lastname"]
        static let schoolYear = ["year", "class", "year in school"]
        static let campus = ["school"]
        static let day = ["meeting_day", "day of week"]
        static let time = ["meeting_time", "start time"]
        static let timezone = ["time zone", "tz"]
        static let url = ["link", "website"]
    }

    private static let code = ColumnSpec("code", .code, required: true, key: true)
    private static let name = ColumnSpec("name", .text, required: true)

    static let campuses = KindSpec(kind: .campuses, table: "campuses", columns: [
        code, name, ColumnSpec("city", .text), ColumnSpec("state", .text),
        ColumnSpec("country", .text, insertDefault: "'US'"),
        ColumnSpec("timezone", .timezone, aliases: Aliases.timezone, insertDefault: defaultZone),
        ColumnSpec("url", .url, aliases: Aliases.url), ColumnSpec("calendar_url", .url), ColumnSpec("map_url", .url),
    ], rules: [.timeZoneDefault(column: "timezone", inheritedThrough: nil)])

    static let ministries = KindSpec(kind: .ministries, table: "ministries", columns: [
        code, name, ColumnSpec("campus", .reference, required: true, aliases: Aliases.campus, references: .campus),
        ColumnSpec("description", .multilineText),
        ColumnSpec("url", .url, aliases: Aliases.url),
        ColumnSpec("contact_email", .email, aliases: ["contact", "staff contact", "staff email"]),
    ], belongsTo: "campus")

    /// A person's name and email; `forget` leaves `Forgotten Person` and an address that stays unique.
    private static let personColumns = [
        ColumnSpec("email", .email, required: true, key: true, aliases: Aliases.email,
                   personal: .replaced(by: "'forgotten-' || t.id || '@invalid'")),
        ColumnSpec("first_name", .text, required: true, aliases: Aliases.firstName,
                   personal: .replaced(by: "'Forgotten'")),
        ColumnSpec("last_name", .text, required: true, aliases: Aliases.lastName, personal: .replaced(by: "'Person'")),
    ]

    /// A leader keeps a (dummy) phone once forgotten, as the schema requires.
    private static let forgottenPhone = Personal.replaced(by: "case when t.is_leader then '+10000000000' end")

    /// Set by the app (an opt-out), by `forget` (its stamp) or by a check-in that added the person
    /// (their origin), never by a file's column.
    private static let personState = ["notifications_opt_out", "forgotten_at", "origin"]

    static let leaders = KindSpec(
        kind: .leaders, table: "people",
        columns: personColumns + [
            ColumnSpec("phone", .phone, required: true, aliases: Aliases.phone, personal: forgottenPhone),
            ColumnSpec("sex", .personSex, aliases: Aliases.sex, personal: .cleared),
            ColumnSpec("campus", .reference, aliases: Aliases.campus, references: .campus, personal: .no),
            ColumnSpec("staff_role", .staffRole, aliases: ["role"], personal: .no),
        ],
        derived: [
            TargetColumn(name: "is_leader", resolve: "true", insertDefault: "false"),
            TargetColumn(name: "is_staff", resolve: "s.staff_role in ('staff', 'intern')", insertDefault: "false"),
            isMember,
        ],
        exportFilter: "t.is_leader and t.forgotten_at is null",
        retirement: nil,
        stateColumns: personState)

    static let students = KindSpec(
        kind: .students, table: "people",
        columns: personColumns + [
            ColumnSpec("phone", .phone, aliases: Aliases.phone, personal: forgottenPhone),
            ColumnSpec("sex", .personSex, aliases: Aliases.sex, personal: .cleared),
            ColumnSpec("school_year", .schoolYear, aliases: Aliases.schoolYear, personal: .cleared),
            ColumnSpec("grad_year", .gradYear, aliases: ["graduation year", "graduation_year"], personal: .cleared),
            ColumnSpec("campus", .reference, aliases: Aliases.campus, references: .campus, personal: .no),
            ministryList("person_ministries", parent: "person_id", nameScope: "campus"),
        ],
        derived: [isMember],
        exportFilter: "not t.is_leader and t.is_member and t.forgotten_at is null",
        retirement: nil,
        stateColumns: personState)

    /// People in students.csv or leaders.csv are members, someone who only asked for a ride too once listed there.
    private static let isMember = TargetColumn(name: "is_member", resolve: "true", insertDefault: "true")

    static let teams = KindSpec(kind: .teams, table: "ministry_teams", columns: [
        code, ColumnSpec("ministry", .reference, required: true, references: .ministry), name,
        ColumnSpec("description", .multilineText), leaderList("team_leaders", parent: "team_id"),
    ], belongsTo: "ministry")

    static let groups = KindSpec(kind: .groups, table: "community_groups", columns: [
        code, ColumnSpec("ministry", .reference, required: true, references: .ministry), name,
        ColumnSpec("day", .day, aliases: Aliases.day, storedIn: "meeting_day"),
        ColumnSpec("time", .time, aliases: Aliases.time, storedIn: "meeting_time"),
        ColumnSpec("location", .text), ColumnSpec("audience", .audience, aliases: ["type"]),
        ColumnSpec("sex", .groupSex, aliases: Aliases.sex),
        ColumnSpec("capacity", .positiveInt, aliases: ["size", "max members"]),
        leaderList("group_leaders", parent: "group_id", required: true), ColumnSpec("description", .multilineText),
        ColumnSpec("first_meeting", .date, aliases: ["first meeting date", "starts on"]),
        ColumnSpec("last_meeting", .date, aliases: ["last meeting date", "ends on"]),
    ], rules: [.endNotBeforeStart(start: "first_meeting", end: "last_meeting")], belongsTo: "ministry")

    static let memberships = KindSpec(
        kind: .memberships, table: "memberships",
        columns: [
            ColumnSpec("group", .reference, required: true, key: true, aliases: ["group code", "group name", "community group"],
                       references: .group, personal: .no),
            ColumnSpec("email", .email, required: true, key: true, aliases: Aliases.email, storedIn: "person_id",
                       references: .student,
                       personal: .no),
            ColumnSpec("joined_at", .dateTime, aliases: ["joined"],
                       resolve: instant("s.joined_at", zone: "coalesce(gc.timezone, \(defaultZone))"),
                       export: "to_char(t.joined_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
                       insertDefault: "now()", personal: .no),
            ColumnSpec("status", .membershipStatus, insertDefault: "'active'", personal: .no),
        ],
        derived: [TargetColumn(name: "source", resolve: "'import'", insertDefault: "'import'", updatable: false)],
        // A joined_at without offset is wall-clock time on the group's campus.
        resolveJoins: "left join ministries gm on gm.id = g.ministry_id left join campuses gc on gc.id = gm.campus_id",
        rules: [.groupCapacity],
        messageKey: "email",
        retirement: membershipEnd,
        belongsTo: "group",
        syncScopedByFile: true)

    /// Date-time text (SQL over the staging row `s`) to an instant: text with an offset as it is,
    /// wall-clock text in `zone` (SQL).
    private static func instant(_ text: SQLFragment, zone: SQLFragment) -> SQLFragment {
        "case when \(text) ~ '(Z|[+-][0-9][0-9]:[0-9][0-9])$' then \(text)::timestamptz else \(text)::timestamp at time zone \(zone) end"
    }

    /// An event's zone: the row's (which the checks fill in from its ministries), else the stored event's.
    static let eventZone: SQLFragment = "coalesce(s.timezone, e.timezone, \(defaultZone))"

    /// An instant (SQL over the target row `t`) as wall-clock text in a time zone (SQL; the event's
    /// own), as staff typed it.
    private static func localText(_ instant: SQLFragment, zone: SQLFragment = "t.timezone") -> SQLFragment {
        "to_char(\(instant) at time zone \(zone), 'YYYY-MM-DD\"T\"HH24:MI:SS')"
    }

    static let events = KindSpec(
        kind: .events, table: "events",
        columns: [
            code, name,
            ColumnSpec("starts_at", .dateTime, required: true, aliases: ["start", "starts", "start date"],
                       resolve: instant("s.starts_at", zone: eventZone), export: localText("t.starts_at")),
            ColumnSpec("ends_at", .dateTime, aliases: ["end", "ends", "end date"], resolve: instant("s.ends_at", zone: eventZone),
                       export: localText("t.ends_at")),
            ColumnSpec("timezone", .timezone, aliases: Aliases.timezone, insertDefault: defaultZone),
            ColumnSpec("location", .text),
            ministryList("event_ministries", parent: "event_id"),
            ColumnSpec("rideshare", .rideshare, aliases: ["ride sharing", "ridesharing"],
                       export: "case t.rideshare when 'both' then 'yes' else t.rideshare end", insertDefault: "'no'"),
            ColumnSpec("url", .url, aliases: Aliases.url), ColumnSpec("description", .multilineText),
            ColumnSpec("all_day", .bool, aliases: ["all day event"], insertDefault: "false"),
            ColumnSpec("recurrence", .recurrenceRule, aliases: ["rrule", "repeats"]),
            ColumnSpec("exceptions", .list(.dateTime), aliases: ["exdate", "except"],
                       resolve: """
                           (select array_agg(v.at order by v.at) from unnest(string_to_array(s.exceptions, ';')) x \
                           cross join lateral (select \(instant("x", zone: eventZone)) as at) v)
                           """,
                       export: "(select string_agg(\(localText("x")), ';' order by x) from unnest(t.exceptions) x)"),
            ColumnSpec("uid", .text, unique: true),
        ],
        resolveJoins: "left join events e on e.code = s.code",
        rules: [.timeZoneDefault(column: "timezone", inheritedThrough: "ministries"),
                .eventEndsAfterStart],
        belongsTo: "ministries")

    static let missions = KindSpec(
        kind: .missions, table: "summer_missions",
        columns: [
            code, name,
            ColumnSpec("starts_on", .date, required: true, aliases: ["start", "start date"]),
            ColumnSpec("ends_on", .date, required: true, aliases: ["end", "end date"]),
            ColumnSpec("location", .text, required: true), ColumnSpec("cost", .money), ColumnSpec("leaders", .text),
            ColumnSpec("url", .url, aliases: Aliases.url), ColumnSpec("description", .multilineText),
        ],
        rules: [.endNotBeforeStart(start: "starts_on", end: "ends_on")])

    static let resources = KindSpec(kind: .resources, table: "resources", columns: [
        ColumnSpec("url", .url, required: true, key: true, aliases: Aliases.url),
        ColumnSpec("title", .text, required: true),
        ColumnSpec("type", .resourceType), ColumnSpec("author", .text),
        ColumnSpec("published_on", .date, aliases: ["date", "published"]),
        ColumnSpec("topics", .list(.text), aliases: ["tags"], list: ListRelation(
            childTable: "resource_topics", parentColumn: "resource_id", valueColumn: "topic", reference: nil)),
        ColumnSpec("leaders_only", .bool, aliases: ["restricted"], insertDefault: "false"),
        ColumnSpec("description", .multilineText),
    ])

    /// A campus's terms, each with its first and last day of classes and its breaks, in one row.
    static let terms = KindSpec(
        kind: .terms, table: "terms",
        columns: [
            ColumnSpec("campus", .reference, required: true, key: true, aliases: Aliases.campus, references: .campus),
            ColumnSpec("code", .code, required: true, key: true, aliases: ["term"]), name,
            ColumnSpec("starts_on", .date, required: true, aliases: ["first day", "first day of classes", "start"]),
            ColumnSpec("ends_on", .date, required: true, aliases: ["last day", "last day of classes", "end"]),
            ColumnSpec("breaks", .namedPeriods, aliases: ["holidays", "no classes"], insertDefault: "'[]'::jsonb"),
        ],
        rules: [.endAfterStart(start: "starts_on", end: "ends_on"), .periodsWithin("breaks", start: "starts_on", end: "ends_on")],
        messageKey: "code",
        belongsTo: "campus")

    // MARK: Rides

    /// A ride's time: wall-clock text is in the zone of the event the row names (`ev`).
    private static func rideTime(_ name: String, aliases: [String]) -> ColumnSpec {
        ColumnSpec(name, .dateTime, aliases: aliases, resolve: instant("s.\(identifier: name)", zone: "coalesce(ev.timezone, \(defaultZone))"),
                   export: localText("t.\(identifier: name)", zone: "ev.timezone"), personal: .no)
    }

    private static let rideEvent = ColumnSpec("event", .reference, required: true, key: true, aliases: ["event code", "event name"],
                                              references: .event, personal: .no)
    private static let rideDirection = ColumnSpec("direction", .rideDirection, required: true, aliases: ["ways"],
                                                  personal: .no)

    /// Where a ride picks up: a place people read, and where maps find it. It may be where the
    /// person lives, so `forget` erases it from their offers and requests.
    private static let pickup = [
        ColumnSpec("pickup_location", .text, required: true, aliases: ["pickup", "pick up location", "meeting point"],
                   personal: .replaced(by: "'forgotten'")),
        ColumnSpec("latitude", .latitude, aliases: ["lat"], personal: .cleared),
        ColumnSpec("longitude", .longitude, aliases: ["lng", "lon", "long"], personal: .cleared),
        ColumnSpec("postal_code", .postalCode, aliases: ["zip", "zip code", "postcode"], personal: .cleared),
    ]

    private static let rideRules: [RowRule] = [
        .rideshareCovers(event: "event", direction: "direction"), .together(["latitude", "longitude"]),
    ]

    /// A member drives to an event, back from it or both, with seats for passengers.
    static let rideOffers = KindSpec(
        kind: .rideOffers, table: "ride_offers",
        columns: [
            rideEvent,
            ColumnSpec("email", .email, required: true, key: true, aliases: ["driver", "driver email"] + Aliases.email,
                       storedIn: "driver_id",
                       references: .driver, personal: .no),
            rideDirection,
            ColumnSpec("seats", .seats, required: true, aliases: ["free seats", "passenger seats"], personal: .no),
            rideTime("departs_to", aliases: ["departure to the event", "leaves for the event"]),
            rideTime("departs_from", aliases: ["departure from the event", "leaves the event"]),
        ] + pickup + [ColumnSpec("status", .rideOfferStatus, insertDefault: "'open'", personal: .no)],
        rules: rideRules + [.departureEachWay(direction: "direction", to: "departs_to", from: "departs_from")],
        messageKey: "email",
        retirement: rideCancelled,
        belongsTo: "event",
        syncScopedByFile: true)

    /// Anyone asks for a ride; someone crubatch does not know yet is added as a non-member.
    static let rideRequests = KindSpec(
        kind: .rideRequests, table: "ride_requests",
        columns: [
            rideEvent,
            ColumnSpec("email", .email, required: true, key: true,
                       aliases: ["passenger", "passenger email"] + Aliases.email,
                       storedIn: "passenger_id", references: .passenger, personal: .no),
        ] + nameAndPhone(of: .passenger, phoneRequiredWhenNew: false) + [
            rideDirection,
        ] + pickup + [
            rideTime("earliest_departure", aliases: ["earliest", "leave after"]),
            rideTime("latest_departure", aliases: ["latest", "leave by"]),
            ColumnSpec("status", .rideRequestStatus, insertDefault: "'pending'", personal: .no),
        ],
        rules: rideRules + [.endNotBeforeStart(start: "earliest_departure", end: "latest_departure")],
        messageKey: "email",
        retirement: rideCancelled,
        belongsTo: "event",
        syncScopedByFile: true,
        ownedTables: ["ride_pairings"])

    /// The name and phone of a person a row names by email, which add them when they are new (a
    /// passenger, a walk-in): both names are required then, the phone as `phoneRequiredWhenNew` says.
    private static func nameAndPhone(of person: Reference, phoneRequiredWhenNew: Bool) -> [ColumnSpec] {
        [
            ColumnSpec("first_name", .text, aliases: Aliases.firstName,
                       describes: ReferencedDetail(reference: person, requiredWhenNew: true)),
            ColumnSpec("last_name", .text, aliases: Aliases.lastName,
                       describes: ReferencedDetail(reference: person, requiredWhenNew: true)),
            ColumnSpec("phone", .phone, aliases: Aliases.phone,
                       describes: ReferencedDetail(reference: person, requiredWhenNew: phoneRequiredWhenNew)),
        ]
    }

    /// How an offer or a request ends: its status becomes `cancelled` (and the database stamps `ended_at`).
    static let rideCancelled = Retirement.end(column: "status", value: "cancelled")

    // MARK: Attendance

    /// Who came to which event: a known person by email, or a walk-in by name, phone and school year
    /// (`WalkIns`). Without a time, a new check-in is at the event's start (a stored one keeps its time,
    /// unless `--blank clear`). A sync covers the events the file names.
    static let attendance = KindSpec(
        kind: .attendance, table: "attendance",
        columns: [
            ColumnSpec("event", .reference, required: true, key: true, aliases: ["event code", "event name"],
                       references: .event, personal: .no),
            ColumnSpec("email", .email, key: true, aliases: Aliases.email, storedIn: "person_id", references: .attendee,
                       personal: .no),
        ] + nameAndPhone(of: .attendee, phoneRequiredWhenNew: true) + [
            ColumnSpec("school_year", .schoolYear, aliases: Aliases.schoolYear,
                       describes: ReferencedDetail(reference: .attendee, requiredWhenNew: false)),
            ColumnSpec("checked_in_at", .dateTime, aliases: ["checked in", "check-in time", "arrived", "timestamp"],
                       resolve: instant("s.checked_in_at", zone: "coalesce(ev.timezone, \(defaultZone))"),
                       export: localText("t.checked_in_at", zone: "ev.timezone"),
                       insertDefault: "(select e.starts_at from events e where e.id = n.event_id)", personal: .cleared),
        ],
        messageKey: "email",
        belongsTo: "event",
        syncScopedByFile: true,
        walkIns: WalkIns(key: "email", campus: eventCampus))

    /// SQL over a staged row `s` naming an event: the campus its ministries share, or null.
    private static let eventCampus: SQLFragment = """
        (select min(c.code) from events e join event_ministries em on em.event_id = e.id \
        join ministries mi on mi.id = em.ministry_id join campuses c on c.id = mi.campus_id \
        where e.code = s.event having count(distinct c.id) = 1)
        """

    /// The students a check-in sheet adds (`WalkIns`): the columns a walk-in gives, the campus of
    /// their event, and their origin.
    static let walkInStudents: KindSpec = {
        var spec = students.restricted(to: ["email", "first_name", "last_name", "phone", "school_year", "campus"])
        spec.derived.append(TargetColumn(name: "origin", resolve: "'check-in'", updatable: false))
        return spec
    }()
}
