import PostgresClient

/// How two people are found to be probably one (docs/ARCHITECTURE.md, "Duplicate people"), in SQL
/// over migration 21's keys. Pairs are only ever compared when they share a key (blocking): the
/// same phone, the same canonical email (case, Gmail's dots and `+tags`, googlemail.com), the same
/// given name (nicknames: `given_name_variants`) and last name with accents and case ignored, the
/// names swapped, or one of the names one letter apart (`name_deletions`: two names one edit apart
/// share a name with one letter deleted). Each pair is then scored from its evidence.
///
/// The score (0-100): a name match counts 50 (same), 45 (nickname, swapped) or 40 (one-letter typo
/// in a name of 6 letters or more); with a name match the same phone adds 40 and the same email
/// handle at another domain (its letters: `maria.g+cru@x.edu` and `mariag7@y.com`; a school gives
/// `mgarcia` and `mgarcia2` to two people) 30; the same phone alone is 30 (siblings share one); a canonical email in
/// common is at least 90, 100 with a name match; a different sex (both given) takes 50 away, two
/// different phones 20 and two different campuses 20.
public enum PersonMatch {
    /// The score from which `people duplicates` lists a pair and an import warns.
    public static let defaultMinimumScore = 70

    /// SQL: the match keys of `rows`, a query giving `id, email, first_name, last_name, phone, sex,
    /// campus` (a campus's code).
    static func keys(of rows: SQLFragment) -> SQLFragment {
        """
        select r.id, r.email, r.first_name, r.last_name, r.phone, r.sex, r.campus, split_part(r.email, '@', 2) as domain,
               person_name_key(r.first_name) as f, person_name_key(r.last_name) as l,
               given_name_key(r.first_name) as fc, email_canonical(r.email) as ec, email_handle(r.email) as eh
        from (\(rows)) r
        """
    }

    /// SQL: a `with` query giving `a_id, b_id, score, reasons` for every pair of a row of `left` and a
    /// row of `right` (queries as `keys(of:)` takes) that share a key; with `right` nil, the pairs
    /// within `left`, each once (`a_id < b_id`).
    static func scoredPairs(left: SQLFragment, right: SQLFragment?) -> SQLFragment {
        let order: SQLFragment = right == nil ? "and a.id < b.id" : ""
        let rightKeys: SQLFragment = right.map(keys(of:)) ?? "select * from a_keys"
        return """
        with a_keys as materialized (\(keys(of: left))),
        b_keys as materialized (\(rightKeys)),
        a_first as materialized (select k.id, k.l, d from a_keys k, name_deletions(k.f) d),
        b_first as materialized (select k.id, k.l, d from b_keys k, name_deletions(k.f) d),
        a_last as materialized (select k.id, k.fc, d from a_keys k, name_deletions(k.l) d),
        b_last as materialized (select k.id, k.fc, d from b_keys k, name_deletions(k.l) d),
        candidates as (
            select a.id as a_id, b.id as b_id from a_keys a join b_keys b on b.phone = a.phone \(order)
            union select a.id, b.id from a_keys a join b_keys b on b.ec = a.ec \(order)
            union select a.id, b.id from a_keys a join b_keys b on b.fc = a.fc and b.l = a.l and a.l <> '' \(order)
            union select a.id, b.id from a_keys a join b_keys b on b.f = a.l and b.l = a.f and a.f <> '' \(order)
            union select a.id, b.id from a_first a join b_first b on b.l = a.l and b.d = a.d \(order)
            union select a.id, b.id from a_last a join b_last b on b.fc = a.fc and b.d = a.d \(order)
        )
        select c.a_id, c.b_id, e.score, e.reasons
        from candidates c join a_keys a on a.id = c.a_id join b_keys b on b.id = c.b_id
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
