import PostgresClient

/// People matching (docs/ARCHITECTURE.md, "Duplicate people"): how likely two records are one person,
/// weighed as record-linkage systems do (Fellegi and Sunter). Each compared field gives a weight, the
/// log2 of how often its level of agreement holds between two records of one person (`MatchPriors`,
/// fixed and documented) over how often it holds between two people of this list (`MatchEstimates`:
/// the frequency of each name and handle, the share of random pairs at each level, counted in the
/// people table itself). The weights add to a prior, the log-odds that two records of the list are
/// one person; the score is that probability in percent.
public enum PersonMatch {
    /// The score from which `people duplicates` lists a pair and an import warns: a pair at 70 is one
    /// person seven times in ten.
    public static let defaultMinimumScore = 70

    /// The rows to match, as SQL giving `id bigint, new boolean, email text, first_name text,
    /// last_name text, phone text, sex text, campus_id bigint` (names never null). Only pairs with a new
    /// row are scored: in `people duplicates` every row is new; at an import, the rows it adds are.
    public struct Rows: Sendable {
        /// Whether every row is new (then the new rows are the rows, with nothing to filter).
        let allNew: Bool
        let sql: SQLFragment

        /// Every person not forgotten, each new: `people duplicates`.
        static let everyone = Rows(allNew: true, sql: """
            select p.id, true as new, \(email(over: "p")), coalesce(p.first_name, '') as first_name, coalesce(p.last_name, '') as last_name,
                   p.phone, p.sex, p.campus_id
            from people p where p.forgotten_at is null
            """)

        /// The people known, and the new rows of `rows` (a query giving `line, email, first_name, last_name,
        /// phone, sex, campus`, a campus's code), each as id -line.
        static func known(andNew rows: SQLFragment) -> Rows {
            Rows(allNew: false, sql: """
                select p.id, false as new, \(email(over: "p")), coalesce(p.first_name, '') as first_name,
                       coalesce(p.last_name, '') as last_name, p.phone, p.sex, p.campus_id
                from people p where p.forgotten_at is null
                union all select -n.line, true, \(email(over: "n")), n.first_name, n.last_name, n.phone, n.sex, c.id
                from (\(rows)) n left join campuses c on c.code = n.campus
                """)
        }

        /// SQL over `alias`: its email, none for a walk-in's key (made from the name and phone).
        private static func email(over alias: SQLFragment) -> SQLFragment {
            "case when \(alias).email not like \(literal: "%@" + WalkIns.domain) then \(alias).email end as email"
        }
    }

    /// The keys on which two records are compared at all (blocking): a pair sharing none is never
    /// scored.
    public enum Block: Int, CaseIterable, Sendable {
        /// The same phone (a phone more than 20 people share is left to `firstNameAndPhone`).
        case phone = 1
        /// The same address once case, Gmail's dots and `+tags` and googlemail.com are set aside.
        case email = 2
        /// The same letters before the `@`, given names alike (the same letters and digits when the
        /// letters alone are too common).
        case handle = 4
        /// The same given name and phone.
        case firstNameAndPhone = 8
        /// The sound (double metaphone) of a word of the surname and the first initial.
        case surnameSound = 16
        /// The same given name and last initial on one campus.
        case firstNameOnCampus = 32
        /// The given name of one is the surname of the other, and the other way round.
        case swapped = 64

        /// How reports name the block.
        public var name: String {
            switch self {
            case .phone: "phone"
            case .email: "email"
            case .handle: "email handle"
            case .firstNameAndPhone: "first name and phone"
            case .surnameSound: "surname sound and initial"
            case .firstNameOnCampus: "first name and last initial on a campus"
            case .swapped: "names swapped"
            }
        }

        /// The blocks a bit mask holds.
        static func blocks(in mask: Int) -> [Block] { allCases.filter { mask & $0.rawValue != 0 } }
    }
}
