import PostgresClient

/// Which pairs are compared at all (`person_match_candidates`, each with the blocks that found it as a
/// bit mask of `PersonMatch.Block`): pairs sharing a key, found by hash joins from the new rows. A
/// phone, handle or name key held by too many people is skipped: its pairs share nothing rarer, and
/// the other keys find them (a ministry's office phone typed for every walk-in is compared with the
/// given name as well; a school whose addresses are `s` and a student number gives every student the
/// handle `s`, and the handle with its digits is compared instead). The two name blocks join only when a pair
/// sharing nothing but names could reach the minimum score (`PersonMatcher`).
enum MatchBlocks {
    /// More people than this on one key make it too common to compare on alone.
    static let commonKey = 20

    static func statements(names: Bool, allNew: Bool) -> [SQLFragment] {
        let nameBlocks: SQLFragment = names ? """
            union all \(pairs(.surnameSound, new: "(select * from sounds where new)", all: "sounds", on: "o.key = n.key"))
            union all \(pairs(.firstNameOnCampus, new: "(select * from campus_names where new)", all: "campus_names",
                               on: "o.key = n.key"))
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
        // Two given names the same, or agreeing at some level (a nickname, a typo ...).
        let givenAlike: SQLFragment = "(n.f = o.f or exists (select 1 from person_match_given_pairs gp where gp.a = n.f and gp.b = o.f))"
        // When every row is new (`people duplicates`), the new rows are the keys themselves; else a
        // table of the few new ones, so that each block reads them without filtering the list again.
        let new: SQLFragment = allNew ? "person_match_keys" : "person_match_new"
        let newRows: [SQLFragment] = allNew ? [] : [
            "create temp table person_match_new as select * from person_match_keys where new",
            "analyze person_match_new (id, phone, ec, ea, eh, f, l)",
        ]
        return newRows + [
            """
            create temp table person_match_candidates as
            with common_phones as (select key as phone from person_match_common where phone),
                 common_handles as (select key as eh from person_match_common where not phone)\(sounds)
            select a_id, b_id, bit_or(block) as blocks from (
                -- one join on the phone for both blocks that hold it
                \(pairs(blocks: """
                    case when n.phone not in (select phone from common_phones) then \(PersonMatch.Block.phone.rawValue) else 0 end
                    | case when n.f <> '' and o.f = n.f then \(PersonMatch.Block.firstNameAndPhone.rawValue) else 0 end
                    """, new: new, on: "o.phone = n.phone",
                    where: "(n.phone not in (select phone from common_phones) or (n.f <> '' and o.f = n.f))"))
                union all \(pairs(.email, new: new, on: "o.ec = n.ec", where: "n.ec <> ''"))
                union all \(pairs(.handle, new: new, on: "o.eh = n.eh", where: """
                    n.eh <> '' and n.eh not in (select eh from common_handles) and \(givenAlike)
                    """))
                -- a handle's letters held by many (`s` of `s1234567@school.edu`) leave the handle with its
                -- digits to tell two students apart
                union all \(pairs(.handle, new: new, on: "o.ea = n.ea", where: """
                    n.eh in (select eh from common_handles) and \(givenAlike)
                    """))
                union all \(pairs(.swapped, new: new, on: "o.f = n.l and o.l = n.f", where: "n.f <> n.l and n.f <> '' and n.l <> ''"))
                \(nameBlocks)
            ) x group by a_id, b_id
            """,
            "analyze person_match_candidates",
        ]
    }

    /// SQL: the pairs of a new row `n` of `new` and a row `o` of `all` (each with `id`, `new` and keys)
    /// that hold `block`'s key alike (`on`; `where` over the same), as `a_id, b_id, block`, the lower id
    /// first. Driven by the new rows, so an import of one row joins one row with the list, not the
    /// list with itself; each pair of two new rows once.
    private static func pairs(_ block: PersonMatch.Block, new: SQLFragment,
                              all: SQLFragment = "person_match_keys", on key: SQLFragment,
                              where condition: SQLFragment? = nil) -> SQLFragment {
        pairs(blocks: "\(block.rawValue)", new: new, all: all, on: key, where: condition)
    }

    /// SQL: as `pairs(_:new:all:on:where:)`, with the blocks that found each pair computed (`blocks`,
    /// a bit mask over `n` and `o`).
    private static func pairs(blocks: SQLFragment, new: SQLFragment,
                              all: SQLFragment = "person_match_keys", on key: SQLFragment,
                              where condition: SQLFragment? = nil) -> SQLFragment {
        let also: SQLFragment = condition.map { "and \($0)" } ?? ""
        return """
            select least(n.id, o.id) as a_id, greatest(n.id, o.id) as b_id, \(blocks) as block
            from \(new) n join \(all) o on \(key) and o.id <> n.id
            where (not o.new or n.id < o.id) \(also)
            """
    }
}
