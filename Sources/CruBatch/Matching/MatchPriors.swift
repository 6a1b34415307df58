import PostgresClient

/// What the model assumes before it reads a list, in two temporary tables. `person_match_levels`: for
/// each level of the name comparisons, how often it holds between two records of one person (m), and
/// how often between two people of a list too small to tell (u0). `person_match_priors`: the same for
/// the other comparisons, and the imagined list behind those u0: a thousand people beside the real
/// list, so a file of three rows is weighed sensibly and a list of thousands by itself.
/// docs/ARCHITECTURE.md ("Duplicate people") gives the reasons for each number.
enum MatchPriors {
    static let statements: [SQLFragment] = [
        """
        create temp table person_match_levels as select * from (values
            -- given names of one person's two records: mostly the same; else a nickname, a middle name, a
            -- typo, a respelling, a short form; hardly ever nothing alike (a nickname no table knows)
            ('given', 'exact', 0.83, 0.005), ('given', 'nickname', 0.06, 0.0003), ('given', 'holds', 0.03, 0.0001),
            ('given', 'typo', 0.03, 0.001), ('given', 'phonetic', 0.02, 0.002), ('given', 'prefix', 0.02, 0.0003),
            ('given', 'else', 0.01, null),
            -- surnames: mostly the same; else one part of a compound one, a typo, a respelling, a new one
            ('surname', 'exact', 0.86, 0.002), ('surname', 'part', 0.04, 0.0005), ('surname', 'typo', 0.04, 0.0005),
            ('surname', 'phonetic', 0.02, 0.001), ('surname', 'else', 0.04, null),
            -- surnames of two people on one phone, a family: mostly the same
            ('family', 'exact', 0.86, 0.9), ('family', 'part', 0.04, 0.01), ('family', 'typo', 0.04, 0.005),
            ('family', 'phonetic', 0.02, 0.005), ('family', 'else', 0.04, 0.08)
        ) v(comparison, level, m, u0)
        """,
        """
        create temp table person_match_priors as select
            -- both names the same, either way round, weighed as one name
            0.74::float8 as name_exact,
            -- phones, both given: the same, unless the person changed numbers
            0.93::float8 as phone_same, 0.07::float8 as phone_other,
            -- addresses: the same mailbox; the same handle elsewhere; its letters with other digits; nothing
            0.10::float8 as email_same, 0.10::float8 as email_handle, 0.05::float8 as email_letters,
            0.75::float8 as email_else,
            -- two addresses whose handles are both made of the person's name share it a third of the time
            0.30::float8 as email_name_handle,
            -- sex, both given (typed wrong once in a hundred); campus (a move to another)
            0.99::float8 as sex_same, 0.01::float8 as sex_other, 0.93::float8 as campus_same, 0.07::float8 as campus_other,
            -- a Jr. on one record only: a son and his father, hardly ever a suffix left off
            0.01::float8 as generation_other,
            -- second records in a list: one per 50 people
            0.02::float8 as duplicates_per_person,
            -- the imagined list: its size; its families sharing a phone (a pair per 50 people); how often two
            -- of its people of one name share a handle made of it, or differ by a Jr.
            1000::float8 as background, 0.02::float8 as families_per_person, 0.2::float8 as u_name_handle,
            0.05::float8 as u_generation
        """,
    ]
}
