import PostgresClient

/// The keys each person is compared by, in temporary tables: every spelling of a given name and a
/// surname once (`person_name_tokens`: its words, accents, case and punctuation aside; a surname
/// without its Jr.), and per person (`person_match_keys`) the name keys, phone, sex, campus and the
/// email (none for a walk-in) taken apart: its canonical form (`ec`: case, Gmail's dots and `+tags`, googlemail.com aside),
/// its domain, its handle's letters and digits (`ea`) and letters alone (`eh`). Each `offset 0` keeps a
/// value computed once a row: inlined, it would be computed again for every column reading it. A
/// `translate` of many letters costs more than the rest of the row, so the handle's punctuation goes by
/// `replace`, and only a handle with digits is translated. The rows are read once, into
/// `person_match_rows`: read three times, a person renamed by another session between the reads
/// could miss the name forms and be left out. The keys compared only for equality are in the "C"
/// collation, so that `analyze` sorts their samples by bytes.
enum PersonKeys {
    static func statements(of rows: PersonMatch.Rows) -> [SQLFragment] {
        [
            "create temp table person_match_rows as \(rows.sql)",
            """
            create temp table person_match_given_forms as
            select x.raw, t.tokens, array_to_string(t.tokens, '') as v
            from (select distinct r.first_name as raw from person_match_rows r) x
            cross join lateral (select person_name_tokens(x.raw) as tokens offset 0) t
            """,
            """
            create temp table person_match_surname_forms as
            select x.raw, w.tokens, array_to_string(w.tokens, '') as v, cardinality(w.tokens) < cardinality(t.tokens) as suffix
            from (select distinct r.last_name as raw from person_match_rows r) x
            cross join lateral (select person_name_tokens(x.raw) as tokens offset 0) t
            cross join lateral (select without_generation(t.tokens) as tokens offset 0) w
            """,
            // Without their sizes the planner sorts every person to merge them with the names.
            "analyze person_match_given_forms (raw, v), person_match_surname_forms (raw, v)",
            """
            create temp table person_match_keys as
            select e.id, e.new, e.first_name, e.last_name, e.phone collate "C" as phone, e.sex, e.campus_id, g.v collate "C" as f,
                   s.v collate "C" as l, s.suffix,
                   case when e.domain in ('gmail.com', 'googlemail.com') then replace(e.local, '.', '') || '@gmail.com'
                        else coalesce(e.local || '@' || e.domain, '') end collate "C" as ec,
                   coalesce(e.domain, '') collate "C" as domain, coalesce(e.ea, '') collate "C" as ea,
                   coalesce(case when e.ea ~ '[0-9]' then translate(e.ea, '0123456789', '') else e.ea end, '') collate "C" as eh
            from (select y.*, replace(replace(replace(replace(y.local, '.', ''), '_', ''), '-', ''), '''', '') as ea
                  from (select r.*, split_part(split_part(lower(r.email), '@', 1), '+', 1) as local,
                               split_part(lower(r.email), '@', 2) as domain from person_match_rows r offset 0) y offset 0) e
            join person_match_given_forms g on g.raw = e.first_name
            join person_match_surname_forms s on s.raw = e.last_name
            """,
            // The planner needs the size and the spread of the join keys, and how few rows are new at
            // an import; the rest is never joined on.
            "analyze person_match_keys (id, new, phone, ec, ea, eh, f, l)",
            // The phones and handles' letters too common to compare on alone (`MatchBlocks.commonKey`).
            """
            create temp table person_match_common as
            select phone as key, true as phone from person_match_keys where phone is not null group by phone
            having count(*) > \(MatchBlocks.commonKey)
            union all select eh, false from person_match_keys where eh <> '' group by eh having count(*) > \(MatchBlocks.commonKey)
            """,
        ]
    }
}
