import FileOutput
import PostgresClient

/// What `export attendance` lists besides the kind in its import format: stamps per person, or who
/// came to one event.
public enum AttendanceListing: Sendable, Equatable {
    /// Per person, the events of the campus they came to (within the term, when one is given) and
    /// how many: their "passport". Only people with at least `minimum` stamps (the rewards list).
    case stamps(campus: String, term: String?, minimum: Int)
    /// Who came to the event (code), in the order they checked in.
    case event(String)
}

/// The SQL of stamps: check-ins that count (neither the check-in nor its event archived) at a campus's
/// events, which its ministries hold.
enum AttendanceStamps {
    /// SQL over `a` (attendance) and `e` (its event): the check-in counts.
    static let counts: SQLFragment = "\(Retirement.archive.isCurrent(over: "a")) and \(Retirement.archive.isCurrent(over: "e"))"

    /// SQL over `e`: the event belongs to a ministry of the campus whose id is the SQL `campus`.
    static func held(on campus: SQLFragment) -> SQLFragment {
        """
        exists (select 1 from event_ministries em join ministries emi on emi.id = em.ministry_id
                where em.event_id = e.id and emi.campus_id = \(campus))
        """
    }

    /// SQL over `e` and a term `t`: the event starts on a day of the term, on its own clock.
    static let inTerm: SQLFragment = "(e.starts_at at time zone e.timezone)::date between t.starts_on and t.ends_on"

    /// SQL: how many events of the campus whose id is the SQL `campus` the person whose id is the
    /// SQL `person` came to in the campus's current term (the one today falls in); null when no term
    /// is current. A roster's "events this term".
    static func thisTerm(person: SQLFragment, campus: SQLFragment) -> SQLFragment {
        """
        (select (select count(*) from attendance a join events e on e.id = a.event_id
                 where a.person_id = \(person) and \(counts) and \(held(on: campus)) and \(inTerm))
         from terms t where t.campus_id = \(campus) and \(Retirement.archive.isCurrent(over: "t"))
         and current_date between t.starts_on and t.ends_on order by t.starts_on desc limit 1)
        """
    }

    /// SQL over `p`: the email people write to, none for a walk-in (whose key is no address).
    static let email: SQLFragment = "case when p.email like \(literal: "%@" + WalkIns.domain) then null else p.email end"
}

extension Exporter {
    /// Stamps or an event's list as CSV (a header, CRLF rows, formula-like cells neutralised) or, with
    /// `json`, as one JSON document (`"kind": "attendance"`, one object per row, the same columns).
    public func exportAttendance(_ listing: AttendanceListing, json: Bool = false, to target: OutputTarget) throws -> ExportedFile {
        let query = try attendanceQuery(listing, safe: { json ? $0 : "csv_safe(\($0))" })
        return json ? try exportJSON(query, kind: Kind.attendance.rawValue, to: target) : try copyCSV(query, to: target)
    }

    /// The listing's query; `safe` wraps a text cell a spreadsheet could run as a formula.
    private func attendanceQuery(_ listing: AttendanceListing, safe: (SQLFragment) -> SQLFragment) throws -> PostgresQuery {
        let person = SQLFragment(joining: [
            "\(safe("p.first_name")) as first_name", "\(safe("p.last_name")) as last_name",
            "\(safe(AttendanceStamps.email)) as email", "\(safe("p.phone")) as phone", "p.school_year",
        ], separator: ", ")
        switch listing {
        case .stamps(let campus, let term, let minimum):
            try requireExists(.campus(campus))
            let termCondition: PostgresQuery
            if let term {
                guard try !connection.query("""
                    select 1 from terms t join campuses c on c.id = t.campus_id
                    where c.code = \(campus.lowercased()) and t.code = \(term.lowercased())
                    """).rows.isEmpty else {
                    throw CruBatchError.usage("no term \(term) at campus \(campus): check the code (see `crubatch export terms`)")
                }
                termCondition = """
                    and exists (select 1 from terms t where t.campus_id = c.id and t.code = \(term.lowercased())
                                and \(unescaped: AttendanceStamps.inTerm))
                    """
            } else {
                termCondition = ""
            }
            return """
                select \(unescaped: person), count(*) as stamps, string_agg(e.code, ';' order by e.starts_at, e.code) as events
                from attendance a join events e on e.id = a.event_id join people p on p.id = a.person_id
                join campuses c on c.code = \(campus.lowercased())
                where \(unescaped: AttendanceStamps.counts) and \(unescaped: AttendanceStamps.held(on: "c.id"))
                and p.forgotten_at is null \(termCondition)
                group by p.id having count(*) >= \(minimum)
                order by count(*) desc, p.last_name, p.first_name, p.email
                """
        case .event(let code):
            guard try !connection.query("select 1 from events where code = \(code.lowercased())").rows.isEmpty else {
                throw CruBatchError.usage("no event \(code): check the code (see `crubatch export events`)")
            }
            return """
                select \(unescaped: person),
                       to_char(a.checked_in_at at time zone e.timezone, 'YYYY-MM-DD"T"HH24:MI:SS') as checked_in_at,
                       case when p.origin = 'check-in' then 'yes' else 'no' end as walk_in
                from attendance a join events e on e.id = a.event_id join people p on p.id = a.person_id
                where e.code = \(code.lowercased()) and \(unescaped: Retirement.archive.isCurrent(over: "a"))
                and p.forgotten_at is null
                order by a.checked_in_at, p.last_name, p.first_name, p.email
                """
        }
    }
}
