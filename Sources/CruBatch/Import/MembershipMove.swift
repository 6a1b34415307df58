import PostgresClient

/// A move: a student who joins a group leaves their other groups of the same ministry, in the same
/// transaction (`import memberships --move`, and `place` when it places a student again). The old
/// memberships end (status `left`), so they stay as history and free their seats.
enum MembershipMove {
    private static let ending = KindCatalog.membershipEnd

    /// For the rows of a memberships file (the resolving SELECT of its kind): ends each student's
    /// other memberships in the ministries of the groups the file gives them; selects their group ids.
    static func endingOthers(listedIn resolveSQL: SQLFragment) -> PostgresQuery {
        endingOthers(of: """
            select n.person_id, n.group_id from (\(unescaped: resolveSQL)) n where \(unescaped: ending.isCurrent(over: "n"))
            """)
    }

    /// For one placement: ends the student's other memberships in the ministry of `groupID`.
    static func endingOthers(person personID: String, joining groupID: String) -> PostgresQuery {
        endingOthers(of: "select \(personID)::bigint as person_id, \(groupID)::bigint as group_id")
    }

    /// `joins` selects `(person_id, group_id)`; a group `joins` names for the same person is kept.
    private static func endingOthers(of joins: PostgresQuery) -> PostgresQuery {
        """
        with joins as (\(joins)), ended as (
            update memberships m set \(unescaped: ending.retire)
            from joins j join community_groups joined on joined.id = j.group_id
            join community_groups other on other.ministry_id = joined.ministry_id
            where m.group_id = other.id and m.person_id = j.person_id and \(unescaped: ending.isCurrent(over: "m"))
            and not exists (select 1 from joins k where k.person_id = m.person_id and k.group_id = m.group_id)
            returning m.group_id)
        select group_id from ended
        """
    }
}
