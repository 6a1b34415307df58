import PostgresClient

/// How the list's names agree, computed once per distinct name rather than per pair: how many people
/// hold each given name, surname and full name, and every pair of distinct names that agree short of
/// the same, at their best level. Given names: a nickname of one name (`given_name_variants`, a short
/// form under every name it is short for), one holding the other (`Mary Ann` / `Mary`), one edit
/// apart (two from eight letters: `within_one_edit`), the same sound (fuzzystrmatch's double
/// metaphone), one the start of the other (`Han` / `Hannah`). Surnames: one's parts within the
/// other's (`Garcia` / `Garcia-Lopez`, `Cruz` / `De la Cruz`; particles aside), one edit, the same
/// sound. Candidates come from joins on shared keys (a nickname's name, a word, the name with one
/// letter deleted, a sound, a start), never from every pair of names. Two surnames whose only
/// agreement is their sound are not listed (`person_match_surname_pairs` holds parts and typos): a
/// common sound is shared by hundreds of spellings, so their pairs would be most of the table, and
/// the level is read from the two names' `dm` instead (`surnameLevel`).
enum NameAgreement {
    /// SQL: the joins `surnameLevel` reads, from the surnames `l` of rows `a` and `b`: their listed
    /// pair `sp`, and each name's row of `person_match_surname` (`sa`, `sb`).
    static let surnameJoins: SQLFragment = """
        left join person_match_surname_pairs sp on sp.a = a.l and sp.b = b.l
        left join person_match_surname sa on sa.v = a.l left join person_match_surname sb on sb.v = b.l
        """

    /// SQL: the level at which the surnames `l` of `a` and `b` agree, over `surnameJoins`: none when
    /// either is empty, the same, a listed pair's level, the same sound, or else (a surname not in
    /// `person_match_surname` has no sound there).
    static let surnameLevel: SQLFragment = """
        case when a.l = '' or b.l = '' then null when a.l = b.l then 'exact'
             else coalesce(sp.level, case when sa.dm = sb.dm and sa.dm <> '' then 'phonetic' end, 'else') end
        """

    static let statements: [SQLFragment] = [
        """
        create temp table person_match_names as
        select f, l, count(*)::float8 as n from person_match_keys where f <> '' and l <> ''
        group by grouping sets ((f), (l), (f, l))
        """,
        // Each full name numbered, for the joins that are within one name (cheaper on a number than on
        // two texts).
        """
        create temp table person_match_full as
        select row_number() over () as id, f, l, n from person_match_names where f is not null and l is not null
        """,
        """
        create temp table person_match_variants as
        select v.variant as v, v.given_name as c from given_name_variants v
        union select v.given_name, v.given_name from given_name_variants v
        """,
        """
        create temp table person_match_given as
        select n.f as v, n.n, t.tokens, dmetaphone(n.f) as dm,
               array(select distinct x from unnest(array[n.f, t.tokens[1]] || array(
                   select o.v from person_match_variants a join person_match_variants o on o.c = a.c where a.v = n.f)) x) as forms
        from person_match_names n
        join (select v, min(tokens) as tokens from person_match_given_forms group by v) t on t.v = n.f
        where n.l is null
        """,
        """
        create temp table person_match_surname as
        select n.l as v, n.n, t.tokens, dmetaphone(n.l) as dm,
               array(select p from unnest(t.tokens) p where length(p) >= 2 and p not in ('de', 'del', 'della', 'la', 'las',
                     'los', 'le', 'da', 'das', 'do', 'dos', 'di', 'du', 'van', 'von', 'der', 'den', 'ter', 'ten', 'st', 'al',
                     'el', 'abu', 'bin', 'ibn', 'y')) as parts
        from person_match_names n
        join (select v, min(tokens) as tokens from person_match_surname_forms group by v) t on t.v = n.l
        where n.f is null
        """,
        // Only what is joined or filtered on: the arrays' element statistics cost more than the rest.
        "analyze person_match_full (f, l, n), person_match_given (v, dm), person_match_surname (v, dm, parts)",
        """
        create temp table person_match_given_pairs as
        with deletions as (select g.v, left(g.v, i - 1) || substr(g.v, i + 1) as d
                           from person_match_given g, generate_series(1, length(g.v)) i where length(g.v) >= 2
                           union all select g.v, g.v from person_match_given g),
             tokens as (select g.v, t from person_match_given g, unnest(g.tokens) t where cardinality(g.tokens) > 1),
             prefixes as (select g.v, left(g.v, i) as p from person_match_given g, generate_series(3, length(g.v) - 1) i),
             found as (
                select a.v as a, o.v as b, 1 as rank from person_match_given a join person_match_variants x on x.v = a.v
                join person_match_variants o on o.c = x.c and o.v <> a.v
                union all select a.v, b.v, 2 from tokens a join person_match_given b on b.v = a.t
                union all select b.v, a.v, 2 from tokens a join person_match_given b on b.v = a.t
                union all select x.a, x.b, 3 from (select distinct a.v as a, b.v as b from deletions a
                                                   join deletions b on b.d = a.d and b.v <> a.v) x
                where within_one_edit(x.a, x.b) or (least(length(x.a), length(x.b)) >= 8 and levenshtein(x.a, x.b) <= 2)
                union all select a.v, b.v, 4 from person_match_given a join person_match_given b
                on b.dm = a.dm and a.dm <> '' and b.v <> a.v
                union all select a.v, b.v, 5 from prefixes a join person_match_given b on b.v = a.p
                union all select b.v, a.v, 5 from prefixes a join person_match_given b on b.v = a.p)
        select distinct on (f.a, f.b) f.a collate "C" as a, f.b collate "C" as b,
               (array['nickname', 'holds', 'typo', 'phonetic', 'prefix'])[f.rank] as level
        from found f order by f.a, f.b, f.rank
        """,
        """
        create temp table person_match_surname_pairs as
        with deletions as (select s.v, left(s.v, i - 1) || substr(s.v, i + 1) as d
                           from person_match_surname s, generate_series(1, length(s.v)) i where length(s.v) >= 2
                           union all select s.v, s.v from person_match_surname s),
             parts as (select s.v, p from person_match_surname s, unnest(s.parts) p where cardinality(s.parts) > 1),
             found as (
                select a.v as a, b.v as b, 1 as rank from person_match_surname a join person_match_surname b
                on b.parts = a.parts and b.v <> a.v and cardinality(a.parts) > 0
                union all select a.v, b.v, 1 from parts a join person_match_surname b on b.parts = array[a.p]
                union all select b.v, a.v, 1 from parts a join person_match_surname b on b.parts = array[a.p]
                union all select x.a, x.b, 2 from (select distinct a.v as a, b.v as b from deletions a
                                                   join deletions b on b.d = a.d and b.v <> a.v) x
                where within_one_edit(x.a, x.b) or (least(length(x.a), length(x.b)) >= 8 and levenshtein(x.a, x.b) <= 2))
        select distinct on (a, b) a collate "C" as a, b collate "C" as b, (array['part', 'typo'])[rank] as level
        from found order by a, b, rank
        """,
        "analyze person_match_given_pairs, person_match_surname_pairs",
    ]
}
