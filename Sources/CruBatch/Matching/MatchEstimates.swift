import PostgresClient

/// What two people of this list agree on by chance (u), counted in the list itself, and so what each
/// level of agreement weighs: log2(m / u), in bits (`person_match_weights` for the name levels,
/// `person_match_w` for the rest, with the prior).
///
/// - A name level: the share of pairs of people whose names agree at that level, summed over the pairs
///   of distinct names (`NameAgreement`) from how many hold each (the same name: the sum of n(n-1));
///   for surnames of one sound, per sound (Σn)² − Σn², less the listed pairs of one sound (a part, a
///   typo), which count at their own level.
/// - Families: pairs sharing a phone whose given names differ are two people, nearly always; how many
///   there are among all pairs whose given names differ is how often two people share a phone, and
///   what their surnames do is what a surname is worth between two records on one phone.
/// - Keys held by more people than `MatchBlocks.commonKey` (an office phone, a name given to a
///   thousand test rows) are left out of these counts, as out of the blocks.
/// - Two people of one name whose phones differ are two people, nearly always: how often such pairs
///   share a handle is what a handle made of the name adds, and how often one has a Jr. the other has
///   not is what a Jr. takes away.
/// - Sex and campus: the chance that two people share them, from their shares of the list.
///
/// The imagined list of `MatchPriors` is added to every count, so a small list leans on the priors.
enum MatchEstimates {
    static let statements: [SQLFragment] = [
        """
        create temp table person_match_size as
        select count(*)::float8 as n, count(*) filter (where f <> '')::float8 as ng, count(*) filter (where l <> '')::float8 as ns,
               count(phone)::float8 as np from person_match_keys
        """,
        """
        create temp table person_match_families as
        select \(NameAgreement.surnameLevel) as level
        from person_match_keys a join person_match_keys b on b.phone = a.phone and a.id < b.id
        left join person_match_given_pairs gp on gp.a = a.f and gp.b = b.f
        \(NameAgreement.surnameJoins)
        where a.f <> '' and b.f <> '' and a.f <> b.f and gp.level is null
        and a.phone not in (select key from person_match_common where phone)
        """,
        """
        create temp table person_match_u as
        with surnames as (
            select p.level, sum(a.n * b.n) as pairs, sum(a.n * b.n) filter (where a.dm = b.dm and a.dm <> '') as of_one_sound
            from person_match_surname_pairs p join person_match_surname a on a.v = p.a join person_match_surname b on b.v = p.b
            group by p.level),
        counted as (
            select 'given' as comparison, p.level, sum(a.n * b.n) as pairs from person_match_given_pairs p
            join person_match_given a on a.v = p.a join person_match_given b on b.v = p.b group by p.level
            union all select 'surname', level, pairs from surnames
            -- surnames of one sound, less the pairs of them agreeing better (a part, a typo); the
            -- products are whole numbers, so the sums are exact in any order
            union all select 'surname', 'phonetic',
                   (select coalesce(sum(t * t - q), 0) from (select sum(n) as t, sum(n * n) as q from person_match_surname
                                                             where dm <> '' group by dm) g)
                   - (select coalesce(sum(of_one_sound), 0) from surnames)
            union all select 'given', 'exact', sum(n * (n - 1)) from person_match_given
            union all select 'surname', 'exact', sum(n * (n - 1)) from person_match_surname
            union all select 'family', level, count(*) from person_match_families group by level),
        shares as (
            select l.comparison, l.level, l.m,
                   case when l.comparison = 'family'
                        then (coalesce(c.pairs, 0) + 2 * l.u0) / ((select count(*) from person_match_families) + 2)
                        else (coalesce(c.pairs, 0) + l.u0 * o.background * (o.background - 1))
                             / (h.holders * (h.holders - 1) + o.background * (o.background - 1)) end as u
            from person_match_levels l left join counted c on c.comparison = l.comparison and c.level = l.level
            cross join person_match_priors o
            cross join lateral (select case l.comparison when 'given' then z.ng else z.ns end as holders from person_match_size z) h
            where l.u0 is not null)
        select comparison, level, m, u from shares
        union all select l.comparison, l.level, l.m, 1 - (select sum(s.u) from shares s where s.comparison = l.comparison)
        from person_match_levels l where l.u0 is null
        """,
        """
        create temp table person_match_weights as
        select comparison, level,
               case when level = 'else' then least(0, ln(m / nullif(u, 0)) / ln(2)) else greatest(0, ln(m / nullif(u, 0)) / ln(2)) end
                   as weight
        from person_match_u
        """,
        """
        create temp table person_match_w as
        with families as (select count(*)::float8 as n from person_match_families),
             -- the people of a name some others hold too, first: most names are one person's
             named as materialized (select k.id, n.id as name, k.phone, k.eh, k.suffix from person_match_keys k
                                    join person_match_full n on n.f = k.f and n.l = k.l
                                    where n.n between 2 and \(MatchBlocks.commonKey) and k.eh <> ''),
             same_name as (select count(*)::float8 as n, count(*) filter (where a.eh = b.eh) as handle,
                                  count(*) filter (where a.suffix <> b.suffix) as generation
                           from named a join named b on b.name = a.name and a.id < b.id
                           where a.phone <> b.phone),
             sexes as (select count(*)::float8 as n from person_match_keys where sex in ('male', 'female') group by sex),
             campuses as (select count(*)::float8 as n from person_match_keys where campus_id is not null group by campus_id),
             emails as (select count(*)::float8 as n from person_match_keys group by ec),
             u as materialized (select
                -- families among the pairs whose given names differ, the imagined list's added
                (f.n + o.families_per_person * o.background)
                    / ((z.np * (z.np - 1) / 2 + o.background * (o.background - 1) / 2)
                       * (select u from person_match_u where comparison = 'given' and level = 'else')) as phone_same,
                (m.handle + 2 * o.u_name_handle) / (m.n + 2) as name_handle,
                greatest((m.generation + 2 * o.u_generation) / (m.n + 2), o.u_generation) as generation_other,
                ((select coalesce(sum(n * (n - 1)), 0) from sexes) + 0.5 * o.background * (o.background - 1))
                    / ((select coalesce(sum(n), 0) * (coalesce(sum(n), 0) - 1) from sexes) + o.background * (o.background - 1))
                    as sex_same,
                (select coalesce(sum(n * (n - 1)) / nullif(sum(n) * (sum(n) - 1), 0), 0.5) from campuses) as campus_same,
                ((select coalesce(sum(n * (n - 1) / 2), 0) from emails) + 1)
                    / (z.n * (z.n - 1) / 2 + o.background * (o.background - 1) / 2) as email_same,
                z.n + o.background as people
                from families f, same_name m, person_match_size z, person_match_priors o)
        -- an agreement never counts against, a difference never for
        select greatest(0, ln(o.phone_same / u.phone_same) / ln(2)) as phone_same,
               least(0, ln(o.phone_other / (1 - u.phone_same)) / ln(2)) as phone_other,
               greatest(0, ln(o.email_same / u.email_same) / ln(2)) as email_same,
               greatest(0, ln(o.email_name_handle / u.name_handle) / ln(2)) as email_name_handle,
               least(0, ln(o.email_else) / ln(2)) as email_else,
               greatest(0, ln(o.sex_same / u.sex_same) / ln(2)) as sex_same,
               least(0, ln(o.sex_other / nullif(1 - u.sex_same, 0)) / ln(2)) as sex_other,
               greatest(0, ln(o.campus_same / u.campus_same) / ln(2)) as campus_same,
               least(0, ln(o.campus_other / nullif(1 - u.campus_same, 0)) / ln(2)) as campus_other,
               least(0, ln(o.generation_other / u.generation_other) / ln(2)) as generation_other,
               -- the most a name can weigh: the same name as no one else's
               ln(o.name_exact * (u.people - 1)) / ln(2) as name_most,
               ln(2 * o.duplicates_per_person / (u.people - 1 - 2 * o.duplicates_per_person)) / ln(2) as prior,
               -- what the weights of a pair's own values (how many hold them) are computed from
               g.m as given_m, g.u0 as given_u0, s.m as surname_m, s.u0 as surname_u0, o.name_exact, o.email_handle,
               o.email_letters, o.background, z.n, z.ng, z.ns
        from person_match_priors o, u, person_match_size z,
             person_match_levels g, person_match_levels s
        where g.comparison = 'given' and g.level = 'exact' and s.comparison = 'surname' and s.level = 'exact'
        """,
    ]
}
