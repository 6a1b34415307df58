import PostgresClient

/// How two people are found to be probably one (docs/ARCHITECTURE.md, "Duplicate people"), in SQL
/// over migration 21's keys. Pairs are only ever compared when they share a key (blocking): the
/// same phone, the same canonical email (case, Gmail's dots and `+tags`, googlemail.com), the same
/// email handle; and, when the minimum score is low enough for a name alone to reach it
/// (`nameOnlyMaximum`), the same given name (nicknames: `given_name_variants`) and last name with
/// accents and case ignored, the names swapped, or one of the names one letter apart
/// (`name_deletions`: two names one edit apart share a name with one letter deleted). Each pair is
/// then scored from its evidence.
///
/// The score (0-100): a name match counts 50 (same), 45 (nickname, swapped) or 40 (one-letter typo
/// in a name of 6 letters or more); with a name match the same phone adds 40 and the same email
/// handle at another domain (its letters: `maria.g+cru@x.edu` and `mariag7@y.com`; a school gives
/// `mgarcia` and `mgarcia2` to two people) 30; the same phone alone is 30 (siblings share one); a
/// canonical email in common is at least 90, 100 with a name match; a different sex (both given)
/// takes 50 away, two different phones 20 and two different campuses 20.
public enum PersonMatch {
    /// The score from which `people duplicates` lists a pair and an import warns.
    public static let defaultMinimumScore = 70

    /// The most a pair can score that shares no phone, email or email handle: a name match alone.
    /// Above it, only pairs sharing one of those need comparing.
    public static let nameOnlyMaximum = 50

    /// Whether pairs found by their names alone can reach `minimumScore`.
    static func comparesNames(minimumScore: Int) -> Bool { minimumScore <= nameOnlyMaximum }

    /// SQL: the match keys of `rows`, a query giving `id, email, first_name, last_name, phone, sex,
    /// campus` (a campus's code).
    static func keys(of rows: SQLFragment) -> SQLFragment {
        """
        select r.id, r.email, r.first_name, r.last_name, r.phone, r.sex, r.campus, split_part(r.email, '@', 2) as domain,
               n.f, n.l, coalesce(v.given_name, n.f) as fc, email_canonical(r.email) as ec, email_handle(r.email) as eh
        from (\(rows)) r cross join lateral (select person_name_key(r.first_name) as f, person_name_key(r.last_name) as l) n
        left join given_name_variants v on v.variant = n.f
        """
    }

    /// The statements that build the tables `scoredPairs` reads: the keys of `left` and, unless nil, of
    /// `right` (queries as `keys(of:)` takes), and the names of each with one letter deleted. Temporary
    /// tables rather than a `with` query, analysed, so the planner knows their sizes (it joins 100,000
    /// people by hash instead of comparing every pair). `dropTables` removes them.
    static func keyTables(left: SQLFragment, right: SQLFragment?, names: Bool) -> [SQLFragment] {
        let sides: [(SQLFragment, SQLFragment, SQLFragment, SQLFragment)] =
            [("person_match_a", "person_match_a_first", "person_match_a_last", left)]
            + (right.map { [("person_match_b", "person_match_b_first", "person_match_b_last", $0)] } ?? [])
        return [dropTables] + sides.flatMap { keys, first, last, rows -> [SQLFragment] in
            names ? ["create temp table \(keys) as \(self.keys(of: rows))",
                     "create temp table \(first) as select k.id, k.l, k.f, d from \(keys) k, name_deletions(k.f) d",
                     "create temp table \(last) as select k.id, k.fc, k.l, d from \(keys) k, name_deletions(k.l) d",
                     "analyze \(keys), \(first), \(last)"]
                : ["create temp table \(keys) as \(self.keys(of: rows))", "analyze \(keys)"]
        }
    }

    /// Drops the tables of `keyTables`.
    static let dropTables: SQLFragment = """
        drop table if exists person_match_a, person_match_a_first, person_match_a_last,
                             person_match_b, person_match_b_first, person_match_b_last
        """

    /// SQL, once `keyTables` built the tables: `a_id, b_id, score, reasons` for every pair of a row
    /// of the left and one of the right that share a key (a name key too when `names`, as
    /// `keyTables` was told); with one side (`sameSide`), the pairs within it, each once (`a_id < b_id`).
    static func scoredPairs(sameSide: Bool, names: Bool) -> SQLFragment {
        let order: SQLFragment = sameSide ? "and a.id < b.id" : ""
        let (keys, first, last): (SQLFragment, SQLFragment, SQLFragment) = sameSide
            ? ("person_match_a", "person_match_a_first", "person_match_a_last")
            : ("person_match_b", "person_match_b_first", "person_match_b_last")
        // Names equal on both sides are the first name block's; the typo blocks leave them out.
        let byName: SQLFragment = names ? """
            union select a.id, b.id from person_match_a a join \(keys) b on b.fc = a.fc and b.l = a.l and a.l <> '' \(order)
            union select a.id, b.id from person_match_a a join \(keys) b on b.f = a.l and b.l = a.f and a.f <> '' \(order)
            union select a.id, b.id from person_match_a_first a join \(first) b
                on b.l = a.l and b.d = a.d and b.f <> a.f \(order)
            union select a.id, b.id from person_match_a_last a join \(last) b
                on b.fc = a.fc and b.d = a.d and b.l <> a.l \(order)
            """ : ""
        return """
        with candidates as (
            select a.id as a_id, b.id as b_id from person_match_a a join \(keys) b on b.phone = a.phone \(order)
            union select a.id, b.id from person_match_a a join \(keys) b on b.ec = a.ec \(order)
            union select a.id, b.id from person_match_a a join \(keys) b on b.eh = a.eh and a.eh <> '' \(order)
            \(byName)
        )
        select c.a_id, c.b_id, e.score, e.reasons
        from candidates c join person_match_a a on a.id = c.a_id join \(keys) b on b.id = c.b_id
        cross join lateral (\(evidence)) e
        """
    }

    /// SQL over the keys of two people `a` and `b`: their best name match (`name`, `points`, `reason`),
    /// or none.
    private static let nameMatch: SQLFragment = """
        select v.name, v.points, v.reason from (values
            (a.f = b.f and a.l = b.l, 'same', 50, 'same name'),
            (a.fc = b.fc and a.l = b.l, 'nickname', 45, 'nickname: ' || a.first_name || ' / ' || b.first_name),
            (a.f = b.l and a.l = b.f, 'swapped', 45, 'first and last name swapped'),
            (a.l = b.l and greatest(length(a.f), length(b.f)) >= 6 and levenshtein(a.f, b.f) = 1, 'typo', 40,
             'one letter apart: ' || a.first_name || ' / ' || b.first_name),
            (a.fc = b.fc and greatest(length(a.l), length(b.l)) >= 6 and levenshtein(a.l, b.l) = 1, 'typo', 40,
             'one letter apart: ' || a.last_name || ' / ' || b.last_name)
        ) v(hit, name, points, reason)
        where v.hit and a.f <> '' and a.l <> '' order by v.points desc limit 1
        """

    /// SQL over the keys of two people `a` and `b`: their `score` and `reasons` (one text, `; ` between).
    private static let evidence: SQLFragment = """
        select least(100, greatest(0, greatest(
                   case when m.email_variant then case when m.name is null then 90 else 100 end else 0 end,
                   coalesce(m.points, 0)
                   + case when m.same_phone then case when m.name is null then 30 else 40 end else 0 end
                   + case when m.same_handle and m.name is not null then 30 else 0 end)
               - case when m.other_sex then 50 else 0 end - case when m.other_phone then 20 else 0 end
               - case when m.other_campus then 20 else 0 end))::int as score,
               array_to_string(array_remove(array[
                   m.reason,
                   case when m.same_phone then 'same phone' end,
                   case when m.email_variant then 'email variant' end,
                   case when m.same_handle and not m.email_variant and m.name is not null then 'same email handle' end,
                   case when m.other_sex then 'different sex' end, case when m.other_phone then 'different phones' end,
                   case when m.other_campus then 'different campuses' end], null), '; ') as reasons
        from (select n.name, n.points, n.reason,
                     coalesce(a.phone = b.phone, false) as same_phone,
                     a.ec = b.ec as email_variant,
                     a.eh <> '' and a.eh = b.eh and a.domain <> b.domain as same_handle,
                     coalesce(a.phone <> b.phone, false) as other_phone,
                     coalesce(a.campus <> b.campus, false) as other_campus,
                     coalesce(a.sex in ('male', 'female') and b.sex in ('male', 'female') and a.sex <> b.sex, false)
                         as other_sex
              from (select 1) one left join lateral (\(nameMatch)) n on true) m
        """
}
