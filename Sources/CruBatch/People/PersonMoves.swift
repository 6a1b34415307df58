import PostgresClient

/// The statements of one merge (`PeopleMerge`): each moves one kind of row from the person dropped
/// to the person kept. A row that KEEP already has its own of (a membership of the same group, a
/// ride offer for the same event) is not moved but deleted, KEEP's row taking the earlier date.
/// Every table here is logged, so `undo` puts each row back.
struct PersonMoves {
    let connection: PostgresConnection
    let keep: Int
    let drop: Int

    /// People's columns that a merge fills in KEEP from DROP when KEEP's is empty.
    static let fillable = ["phone", "sex", "school_year", "grad_year", "campus_id", "staff_role"]
    /// People's flags that a merge sets in KEEP when DROP's is set.
    static let flags = ["is_leader", "is_staff", "is_member", "notifications_opt_out"]

    /// The seated rides a merge would break, one line each with the pairing's offer or request: the
    /// two people in one car, or a seated offer or request of DROP's for an event KEEP has one for
    /// too (moving would delete it, and its pairings with it).
    func brokenRides() throws -> [String] {
        try connection.query("""
            select distinct e.code || ': ' || case
                when o.driver_id in (\(keep), \(drop)) and r.passenger_id in (\(keep), \(drop))
                    then 'one rides in the other''s car (offer ' || o.id || ')'
                when o.driver_id = \(drop) then 'both drive, and the car being merged away has passengers (offer ' || o.id || ')'
                else 'both asked for a ride, and the request being merged away is seated (request ' || r.id || ')'
            end
            from ride_pairings p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
            join events e on e.id = o.event_id
            where p.ended_at is null and (
                o.driver_id in (\(keep), \(drop)) and r.passenger_id in (\(keep), \(drop))
                or o.driver_id = \(drop)
                   and exists (select 1 from ride_offers k where k.driver_id = \(keep) and k.event_id = o.event_id)
                or r.passenger_id = \(drop)
                   and exists (select 1 from ride_requests k where k.passenger_id = \(keep) and k.event_id = r.event_id))
            order by 1
            """).rows.map { try $0.decode(String.self, 0) }
    }

    /// Points the notifications to DROP at KEEP, and those about a membership or check-in of DROP's
    /// that KEEP has too at KEEP's (the other ones move with their rows).
    func repointNotifications() throws {
        try connection.query("update notifications set recipient_id = \(keep) where recipient_id = \(drop)")
        try connection.query("""
            update notifications n set membership_id = k.id
            from memberships d join memberships k on k.group_id = d.group_id and k.person_id = \(keep)
            where d.person_id = \(drop) and n.membership_id = d.id
            """)
        try connection.query("""
            update notifications n set attendance_id = k.id
            from attendance d join attendance k on k.event_id = d.event_id and k.person_id = \(keep)
            where d.person_id = \(drop) and n.attendance_id = d.id
            """)
    }

    /// Moves DROP's memberships; in a group both are in, KEEP's stays with the earlier join date.
    /// Returns how many of DROP's memberships there were.
    func memberships() throws -> Int {
        try connection.query("""
            update memberships k set joined_at = d.joined_at from memberships d
            where k.person_id = \(keep) and d.person_id = \(drop) and d.group_id = k.group_id and d.joined_at < k.joined_at
            """)
        return try moveRows(of: "memberships", person: "person_id", sameAs: "group_id")
    }

    /// Moves DROP's ministries after KEEP's own, in their order.
    func ministries() throws -> Int {
        try moveListRows(of: "person_ministries", person: "person_id", sameAs: "ministry_id", ordered: true)
    }

    /// Makes KEEP the leader of the groups and teams DROP leads, in the same place in their lists.
    func leading() throws -> Int {
        try moveListRows(of: "group_leaders", person: "person_id", sameAs: "group_id")
            + moveListRows(of: "team_leaders", person: "person_id", sameAs: "team_id")
    }

    /// Moves DROP's ride offers and requests (with their pairings).
    func rides() throws -> Int {
        try moveRows(of: "ride_offers", person: "driver_id", sameAs: "event_id")
            + moveRows(of: "ride_requests", person: "passenger_id", sameAs: "event_id")
    }

    /// Moves DROP's check-ins; at an event both checked in at, KEEP's keeps the earlier time.
    func attendance() throws -> Int {
        try connection.query("""
            update attendance k set checked_in_at = d.checked_in_at from attendance d
            where k.person_id = \(keep) and d.person_id = \(drop) and d.event_id = k.event_id
            and d.checked_in_at < k.checked_in_at
            """)
        return try moveRows(of: "attendance", person: "person_id", sameAs: "event_id")
    }

    /// Fills KEEP's empty columns from DROP's and sets the flags DROP has; returns the columns filled.
    func fillEmptyFields() throws -> [String] {
        let filled = Self.fillable.map { column -> SQLFragment in
            "case when k.\(identifier: column) is null and d.\(identifier: column) is not null then \(literal: column) end"
        }
        let names = try connection.query("""
            select concat_ws(' ', \(unescaped: SQLFragment(joining: filled, separator: ", ")))
            from people k, people d where k.id = \(keep) and d.id = \(drop)
            """).scalar(String.self).split(separator: " ").map(String.init)
        let assignments = Self.fillable.map { column -> SQLFragment in
            "\(identifier: column) = coalesce(k.\(identifier: column), d.\(identifier: column))"
        } + Self.flags.map { flag -> SQLFragment in "\(identifier: flag) = k.\(identifier: flag) or d.\(identifier: flag)" }
        let changed = Self.flags.map { flag -> SQLFragment in "(d.\(identifier: flag) and not k.\(identifier: flag))" }
        try connection.query("""
            update people k set \(unescaped: SQLFragment(joining: assignments, separator: ", "))
            from people d where k.id = \(keep) and d.id = \(drop)
            and (\(!names.isEmpty) or \(unescaped: SQLFragment(joining: changed, separator: " or ")))
            """)
        return names
    }

    /// Makes DROP's email and aliases KEEP's aliases.
    func keepAliases() throws {
        try connection.query("update person_aliases set person_id = \(keep) where person_id = \(drop)")
        try connection.query("insert into person_aliases (person_id, email) select \(keep), email from people where id = \(drop)")
    }

    /// Cancels the pending newcomer messages about KEEP's check-ins (DROP's moved there) to a
    /// ministry KEEP is no newcomer to: KEEP leads, is in one of its groups, or came to one of its
    /// events before that check-in. Returns how many.
    func cancelNewcomerMessages() throws -> Int {
        try connection.query("""
            update notifications n set status = \(unescaped: NotificationStatus.cancelled.sql),
                last_error = 'two records of one person were merged, and that person is no newcomer to the ministry'
            from attendance a
            where n.kind = 'newcomer' and n.status = \(unescaped: NotificationStatus.pending.sql) and n.attendance_id = a.id and a.person_id = \(keep)
            and (exists (select 1 from people p where p.id = \(keep) and p.is_leader)
                 or exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                            where m.person_id = \(keep) and m.status = 'active' and g.archived_at is null
                            and g.ministry_id = n.ministry_id)
                 or exists (select 1 from attendance o join event_ministries oe on oe.event_id = o.event_id
                            where o.person_id = \(keep) and oe.ministry_id = n.ministry_id
                            and (o.checked_in_at, o.id) < (a.checked_in_at, a.id)))
            """).affectedRows
    }

    /// Deletes DROP's rows of `table` (its person in `person`) of the same `sameAs` as a row of KEEP's;
    /// returns how many.
    private func dropShared(of table: String, person: String, sameAs: String) throws -> Int {
        try connection.query("""
            delete from \(identifier: table) d using \(identifier: table) k
            where d.\(identifier: person) = \(drop) and k.\(identifier: person) = \(keep)
            and k.\(identifier: sameAs) = d.\(identifier: sameAs)
            """).affectedRows
    }

    /// Moves DROP's rows of `table`, keyed by their id, to KEEP, but deletes those of the same `sameAs`
    /// as a row of KEEP's. Returns how many rows DROP had.
    private func moveRows(of table: String, person: String, sameAs: String) throws -> Int {
        try dropShared(of: table, person: person, sameAs: sameAs) + connection.query("""
            update \(identifier: table) set \(identifier: person) = \(keep) where \(identifier: person) = \(drop)
            """).affectedRows
    }

    /// Moves DROP's rows of a list `table` whose key holds the person to KEEP: deleted and inserted
    /// again, since the change log pairs an update's images by key; those of the same `sameAs` as a row
    /// of KEEP's are only deleted. With `ordered`, the moved rows' `position` comes after KEEP's.
    /// Returns how many rows DROP had.
    private func moveListRows(of table: String, person: String, sameAs: String, ordered: Bool = false) throws -> Int {
        let after: SQLFragment = ordered
            ? "(select coalesce(max(position) + 1, 0) from \(identifier: table) where \(identifier: person) = \(keep))"
            : "0"
        return try dropShared(of: table, person: person, sameAs: sameAs) + connection.query("""
            with moved as (delete from \(identifier: table) where \(identifier: person) = \(drop) returning *)
            insert into \(identifier: table)
            select (jsonb_populate_record(null::\(identifier: table), to_jsonb(m)
                    || jsonb_build_object(\(person)::text, \(keep)::bigint, 'position', m.position + \(unescaped: after)))).*
            from moved m
            """).affectedRows
    }
}
