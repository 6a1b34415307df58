import PostgresClient

/// Each compared pair's levels (`person_match_pairs`), their weights (`scored`), and the
/// pairs as reviewers read them: the score, 100 / (1 + 2^-(prior + the weights)), and a reason per
/// comparison with its weight in bits.
///
/// A value both records hold weighs by how many in the list hold it (its frequency; the imagined list
/// of `MatchPriors` adds its share): a given name, a surname, a handle; the full name, either way round,
/// as a whole, for a name shared by few weighs what it is: a name, one piece of evidence. So no name
/// weighs more than the same full name held by no one else (`name_most`). Between two records on one
/// phone the surname weighs what it does in families; a Jr. on one record only, both given names the
/// same, counts against.
enum PairScores {
    static let statements: [SQLFragment] = [
        """
        create temp table person_match_pairs as
        select c.a_id, c.b_id, c.blocks, a.f, a.l, a.first_name as a_first, a.last_name as a_last, b.first_name as b_first,
               b.last_name as b_last,
               case when a.f = '' or b.f = '' then null when a.f = b.f then 'exact' else coalesce(gp.level, 'else') end as given,
               \(NameAgreement.surnameLevel) as surname,
               a.f <> '' and a.l <> '' and a.f <> a.l and a.f = b.l and a.l = b.f as swapped,
               a.phone = b.phone as same_phone,
               case when a.ec = '' or b.ec = '' then null when a.ec = b.ec then 'same'
                    when a.eh = '' or a.eh <> b.eh or (a.ea <> b.ea and a.domain = b.domain) then 'else'
                    when (a.ea <> b.ea or a.ea = a.eh) and \(handleMadeOfName("a", given: "ga", surname: "sa"))
                         and \(handleMadeOfName("b", given: "gb", surname: "sb")) then 'name handle'
                    when a.ea = b.ea then 'handle' else 'letters' end as email,
               -- the handle the two share, and whether with its digits: what its holders are counted by
               case when a.eh <> '' and a.eh = b.eh then case when a.ea = b.ea then a.ea else a.eh end end as handle,
               a.ea = b.ea as same_digits,
               a.suffix <> b.suffix as other_generation,
               case when a.sex in ('male', 'female') and b.sex in ('male', 'female') then a.sex = b.sex end as same_sex,
               a.campus_id = b.campus_id as same_campus
        from person_match_candidates c join person_match_keys a on a.id = c.a_id join person_match_keys b on b.id = c.b_id
        left join person_match_given_pairs gp on gp.a = a.f and gp.b = b.f
        \(NameAgreement.surnameJoins)
        left join person_match_given ga on ga.v = a.f left join person_match_given gb on gb.v = b.f
        """,
        // How many hold each handle pairs share: its letters and digits, or its letters alone.
        """
        create temp table person_match_handles as
        select true as digits, ea as handle, count(*) as holders from person_match_keys
        where ea in (select handle from person_match_pairs where same_digits) group by ea
        union all select false, eh, count(*) from person_match_keys
        where eh in (select handle from person_match_pairs where not same_digits) group by eh
        """,
        // What the scores join on; the rest is only read.
        "analyze person_match_pairs (f, l, given, surname, same_phone, swapped, handle, same_digits)",
        "analyze person_match_handles",
    ]

    /// SQL: whether the handle `eh` of the keys row `side` is made of that person's name, as
    /// `made_of_name` finds it from the rows of `person_match_given` (`given`) and
    /// `person_match_surname` (`surname`) joined on its names. The shapes most handles have (the
    /// given name and surname run together either way, the initial and the surname) are told by the
    /// expression itself: each is a case in which the function returns true, and a plpgsql call per
    /// pair cost more than the rest of the pair's comparison.
    private static func handleMadeOfName(_ side: String, given: String, surname: String) -> SQLFragment {
        let (k, g, s) = (SQLFragment(identifier: side), SQLFragment(identifier: given), SQLFragment(identifier: surname))
        return """
            ((\(k).f <> '' and \(k).l <> '' and \(k).eh in (\(k).f || \(k).l, \(k).l || \(k).f, left(\(k).f, 1) || \(k).l))
             or made_of_name(\(k).eh, coalesce(\(g).forms, '{}'), coalesce(\(s).tokens, '{}')))
            """
    }

    /// SQL: every compared pair with its weights and their total, read once by `pairs(minimumScore:)`
    /// rather than stored: only the pairs that reach the minimum are given reasons.
    private static let scored: SQLFragment = """
        select p.a_id, p.b_id, p.blocks, p.given, p.surname, p.swapped, p.email, p.same_phone, p.same_sex, p.same_campus,
               p.a_first, p.a_last, p.b_first, p.b_last, t.given_weight, t.surname_weight, v.*,
               v.names + v.generation + v.phone + v.email_weight + v.sex + v.campus as total
        from person_match_pairs p cross join person_match_w w
        left join person_match_given g on g.v = p.f left join person_match_surname s on s.v = p.l
        left join person_match_full fl on fl.f = p.f and fl.l = p.l left join person_match_full lf on lf.f = p.l and lf.l = p.f
        left join person_match_handles h on h.handle = p.handle and h.digits = p.same_digits
        left join person_match_weights gw on gw.comparison = 'given' and gw.level = p.given
        left join person_match_weights sw on sw.comparison = case when p.same_phone then 'family' else 'surname' end
                                          and sw.level = case when p.swapped then 'exact' else p.surname end
        cross join lateral (select
            case when p.given is null then 0
                 when p.given = 'exact' or p.swapped then greatest(0, ln(w.given_m * (w.ng - 1 + w.background)
                     / (greatest(g.n, 2) - 1 + w.given_u0 * w.background)) / ln(2))
                 else gw.weight end as given_weight,
            case when p.surname is null then 0
                 when (p.surname = 'exact' or p.swapped) and not coalesce(p.same_phone, false)
                 then greatest(0, ln(w.surname_m * (w.ns - 1 + w.background)
                                     / (greatest(s.n, 2) - 1 + w.surname_u0 * w.background)) / ln(2))
                 else sw.weight end as surname_weight,
            -- the same full name, either way round: weighed as one name, by how many hold it
            case when (p.given = 'exact' and p.surname = 'exact' or p.swapped) and not coalesce(p.same_phone, false)
                 then greatest(0, ln(w.name_exact * (w.n - 1 + w.background) / (coalesce(fl.n, 0) + coalesce(lf.n, 0) - 1
                                     + w.given_u0 * w.surname_u0 * w.background)) / ln(2)) end as whole_name) t
        cross join lateral (select
            least(coalesce(least(t.whole_name, t.given_weight + t.surname_weight), t.given_weight + t.surname_weight),
                  w.name_most) as names,
            case when p.other_generation and p.given = 'exact' then w.generation_other else 0 end as generation,
            case when p.same_phone then w.phone_same when not p.same_phone then w.phone_other else 0 end as phone,
            case when p.email is null then 0 when p.email = 'same' then w.email_same
                 -- a handle made of the name never weighs more than it would as a handle of one's own
                 when p.email = 'name handle'
                 then least(w.email_name_handle, ln(w.email_handle * (w.n - 1 + w.background) / (h.holders - 1)) / ln(2))
                 when p.email = 'handle' then ln(w.email_handle * (w.n - 1 + w.background) / (h.holders - 1)) / ln(2)
                 when p.email = 'letters' then ln(w.email_letters * (w.n - 1 + w.background) / (h.holders - 1)) / ln(2)
                 else w.email_else end as email_weight,
            case when p.same_sex then w.sex_same when not p.same_sex then w.sex_other else 0 end as sex,
            case when p.same_campus then w.campus_same when not p.same_campus then w.campus_other else 0 end as campus) v
        """

    /// SQL: `a_id, b_id, score, reasons, blocks` of the scored pairs at `minimumScore` or more.
    static func pairs(minimumScore: Int) -> SQLFragment {
        """
        select s.a_id, s.b_id, r.score, concat_ws('; ', r.names, r.generation, r.phone, r.email, r.sex, r.campus) as reasons, s.blocks
        from (\(scored)) s cross join person_match_w w
        cross join lateral (select
            case s.given when 'exact' then 'same given name' when 'nickname' then 'nickname: ' || s.a_first || ' / ' || s.b_first
                 when 'holds' then 'given names: ' || s.a_first || ' / ' || s.b_first
                 when 'typo' then 'one letter apart: ' || s.a_first || ' / ' || s.b_first
                 when 'phonetic' then 'sound alike: ' || s.a_first || ' / ' || s.b_first
                 when 'prefix' then 'short form: ' || s.a_first || ' / ' || s.b_first
                 when 'else' then 'different given names' end as given,
            case s.surname when 'exact' then 'same last name' when 'part' then 'last names: ' || s.a_last || ' / ' || s.b_last
                 when 'typo' then 'one letter apart: ' || s.a_last || ' / ' || s.b_last
                 when 'phonetic' then 'sound alike: ' || s.a_last || ' / ' || s.b_last
                 when 'else' then 'different last names' end as surname) n
        cross join lateral (select
            round(100 / (1 + 2 ^ -(s.total + w.prior)))::int as score,
            case when s.swapped then 'first and last name swapped ' || to_char(s.names, 'FMS990.0')
                 when s.given = 'exact' and s.surname = 'exact' then 'same name ' || to_char(s.names, 'FMS990.0')
                 when s.names < s.given_weight + s.surname_weight - 0.05
                 then concat_ws(', ', n.given, n.surname) || ' ' || to_char(s.names, 'FMS990.0')
                 else concat_ws('; ', n.given || ' ' || to_char(s.given_weight, 'FMS990.0'),
                                n.surname || ' ' || to_char(s.surname_weight, 'FMS990.0')) end as names,
            case when s.generation <> 0 then 'Jr. on one only ' || to_char(s.generation, 'FMS990.0') end as generation,
            case when s.same_phone then 'same phone ' when not s.same_phone then 'different phones ' end
                || to_char(s.phone, 'FMS990.0') as phone,
            case s.email when 'same' then 'email variant ' when 'handle' then 'same email handle '
                 when 'letters' then 'same email handle, other digits ' when 'name handle' then 'same email handle made of the name '
                 when 'else' then 'no email in common ' end || to_char(s.email_weight, 'FMS990.0') as email,
            case when s.same_sex then 'same sex ' when not s.same_sex then 'different sex ' end || to_char(s.sex, 'FMS990.0') as sex,
            case when s.same_campus then 'same campus ' when not s.same_campus then 'different campuses ' end
                || to_char(s.campus, 'FMS990.0') as campus) r
        where r.score >= \(minimumScore)
        """
    }
}
