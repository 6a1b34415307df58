import PostgresClient

/// Which pairs are compared at all (`person_match_candidates`, each with the blocks that found it as a
/// bit mask of `PersonMatch.Block`): pairs sharing a key, found by hash joins, and only those with a
/// new row. A phone, handle or name key held by too many people is skipped: its pairs share nothing
/// rarer, and the other keys find them (a ministry's office phone typed for every walk-in is compared
/// with the given name as well; a school whose addresses are `s` and a student number gives every
/// student the handle `s`, and the full address tells them apart). The two name blocks join only when a pair sharing nothing but names could
/// reach the minimum score (`PersonMatcher`). Then, for the handles that pairs share, how many hold
/// each and whether it is made of its holder's name (`person_match_handles`).
enum MatchBlocks {
    /// More people than this on one key make it too common to compare on alone.
    static let commonKey = 20

    static func statements(names: Bool) -> [SQLFragment] {
        let nameBlocks: SQLFragment = names ? """
            union all select a.id, b.id, \(PersonMatch.Block.surnameSound.rawValue) from sounds a
            join sounds b on b.key = a.key and a.id < b.id where a.new or b.new
            union all select a.id, b.id, \(PersonMatch.Block.firstNameOnCampus.rawValue) from campus_names a
            join campus_names b on b.key = a.key and a.id < b.id where a.new or b.new
            """ : ""
        let sounds: SQLFragment = names ? """
            , sounds as (select x.* from (select k.id, k.new, c.code || left(k.f, 1) as key, count(*) over (partition by c.code || left(k.f, 1)) as n
                                          from person_match_keys k join (select s.v, dmetaphone(p) as code from person_match_surname s,
                                          unnest(case when cardinality(s.parts) = 0 then array[s.v] else s.parts end) p) c on c.v = k.l
                                          where k.f <> '') x where x.n <= \(commonKey)),
            campus_names as (select x.* from (select k.id, k.new, k.f || ' ' || left(k.l, 1) || ' ' || k.campus_id as key,
                                                     count(*) over (partition by k.f, left(k.l, 1), k.campus_id) as n
                                              from person_match_keys k where k.f <> '' and k.l <> '' and k.campus_id is not null) x
                             where x.n <= \(commonKey))
            """ : ""
        return [
            """
            create temp table person_match_candidates as
            with common_phones as (select phone from person_match_keys where phone is not null group by phone
                                   having count(*) > \(commonKey)),
                 common_handles as (select eh from person_match_keys where eh <> '' group by eh having count(*) > \(commonKey))\(sounds)
            select a_id, b_id, bit_or(block) as blocks from (
                select a.id as a_id, b.id as b_id, \(PersonMatch.Block.phone.rawValue) as block
                from person_match_keys a join person_match_keys b on b.phone = a.phone and a.id < b.id
                where (a.new or b.new) and a.phone not in (select phone from common_phones)
                union all select a.id, b.id, \(PersonMatch.Block.email.rawValue) from person_match_keys a
                join person_match_keys b on b.ec = a.ec and a.id < b.id where (a.new or b.new) and a.ec <> ''
                union all select a.id, b.id, \(PersonMatch.Block.handle.rawValue) from person_match_keys a
                join person_match_keys b on b.eh = a.eh and a.id < b.id
                where (a.new or b.new) and a.eh <> '' and a.eh not in (select eh from common_handles)
                and (a.f = b.f or exists (select 1 from person_match_given_pairs gp where gp.a = a.f and gp.b = b.f))
                union all select a.id, b.id, \(PersonMatch.Block.firstNameAndPhone.rawValue) from person_match_keys a
                join person_match_keys b on b.f = a.f and b.phone = a.phone and a.id < b.id where (a.new or b.new) and a.f <> ''
                union all select least(a.id, b.id), greatest(a.id, b.id), \(PersonMatch.Block.swapped.rawValue)
                from person_match_keys a join person_match_keys b on b.f = a.l and b.l = a.f
                where (a.new or b.new) and a.f <> a.l and a.f <> '' and a.l <> ''
                \(nameBlocks)
            ) x group by a_id, b_id
            """,
            """
            create temp table person_match_handles as
            select k.id, count(*) over (partition by k.eh) as letters, count(*) over (partition by k.ea) as handle,
                   made_of_name(k.eh, coalesce(g.forms, '{}'), coalesce(s.tokens, '{}')) as made
            from person_match_keys k left join person_match_given g on g.v = k.f left join person_match_surname s on s.v = k.l
            where k.eh in (select a.eh from person_match_candidates c join person_match_keys a on a.id = c.a_id
                           join person_match_keys b on b.id = c.b_id where a.eh = b.eh and a.eh <> '')
            """,
            "analyze person_match_candidates, person_match_handles",
        ]
    }
}
