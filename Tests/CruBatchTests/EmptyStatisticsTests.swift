import CruBatchTestSupport
import Foundation
import Testing

/// The triggers that queue messages do work in proportion to the rows a statement writes, also when
/// the planner's statistics say a table is empty. ANALYZE (autovacuum's too) records that of a table
/// that holds only dead rows, which is what a `--dry-run` or an undo of a large run leaves behind;
/// the real run that followed had its triggers compare every row with every other one (13 s instead
/// of 3 for `rides pair` at 10,000 requests, 20 s instead of 2 for `place` at 10,000 answers).
///
/// Each test puts a table in that state, writes its rows again in one statement with auto_explain
/// reporting the plan of every statement the triggers run, and adds up the rows those plans read
/// and threw away. Foreign-key checks (`SELECT 1 FROM ONLY ...`) are left out of the sum: they
/// are PostgreSQL's own, one small lookup per row.
@Suite("trigger work when statistics say a table is empty")
struct EmptyStatisticsTests {
    /// Autovacuum left out of these tables: a vacuum between the set-up and the measured statement
    /// would truncate their dead pages, and the planner would then guess right by chance.
    private static let holdStatistics = """
        alter table memberships set (autovacuum_enabled = off);
        alter table ride_pairings set (autovacuum_enabled = off);
        alter table notifications set (autovacuum_enabled = off);
        """

    /// 20 groups with a leader each, 400 students; `joins` puts student N in group N mod 20.
    private static let groups = """
        insert into campuses (code, name) values ('calpoly', 'Cal Poly');
        insert into ministries (code, name, campus_id) select 'cru-slo', 'Cru SLO', id from campuses;
        insert into community_groups (code, name, ministry_id)
        select 'g' || n, 'Group ' || n, m.id from generate_series(0, 19) n, ministries m;
        insert into people (email, first_name, last_name, phone, is_leader)
        select 'leader' || n || '@example.org', 'Lee' || n, 'Leader', '+1805555' || lpad(n::text, 4, '0'), true
        from generate_series(0, 19) n;
        insert into group_leaders (group_id, person_id)
        select g.id, p.id from community_groups g join people p on p.email = 'leader' || substr(g.code, 2) || '@example.org';
        insert into people (email, first_name, last_name)
        select 's' || n || '@example.edu', 'Sam' || n, 'Student' from generate_series(1, 400) n;
        """
    private static let joins = """
        insert into memberships (group_id, person_id)
        select g.id, p.id from generate_series(1, 400) n
        join people p on p.email = 's' || n || '@example.edu' join community_groups g on g.code = 'g' || n % 20
        """

    /// 1,500 cars of 4 seats both ways and 6,000 passengers going both ways; `pairings` seats
    /// passenger N in car (N - 1) / 4 + 1 both ways: 12,000 pairings, every car full. (At a few hundred
    /// pairings the planner happens to choose well; the bad choice shows from some thousands.)
    private static let rides = """
        insert into events (code, name, starts_at, timezone, rideshare)
        values ('retreat', 'Fall Retreat', '2026-10-16 17:00 America/Los_Angeles', 'America/Los_Angeles', 'both');
        insert into people (email, first_name, last_name)
        select 'd' || n || '@example.org', 'Dana' || n, 'Driver' from generate_series(1, 1500) n;
        insert into people (email, first_name, last_name, is_member)
        select 'p' || n || '@example.edu', 'Pat' || n, 'Rider', false from generate_series(1, 6000) n;
        insert into ride_offers (event_id, driver_id, direction, seats, departs_to, departs_from, pickup_location)
        select e.id, p.id, 'both', 4, '2026-10-16 15:30 America/Los_Angeles', '2026-10-18 13:30 America/Los_Angeles', 'Rec Center lot'
        from events e, people p where p.email like 'd%@example.org';
        insert into ride_requests (event_id, passenger_id, direction, pickup_location)
        select e.id, p.id, 'both', 'Dorm' from events e, people p where p.email like 'p%@example.edu';
        """
    private static let pairings = """
        insert into ride_pairings (offer_id, request_id, leg)
        select o.id, r.id, leg from generate_series(1, 6000) n cross join (values ('to'), ('from')) l (leg)
        join people pp on pp.email = 'p' || n || '@example.edu' join ride_requests r on r.passenger_id = pp.id
        join people d on d.email = 'd' || ((n - 1) / 4 + 1) || '@example.org' join ride_offers o on o.driver_id = d.id
        """

    @Test("joins into memberships that statistics call empty: the join messages and their checks read the statement's own rows, not every membership")
    func joinedMessages() throws {
        let database = try TestDatabase()
        try database.connect().script(Self.holdStatistics + Self.groups + Self.joins
                                      + "; delete from notifications; delete from memberships; analyze memberships, notifications")
        #expect(try database.count("select count(*) from pg_class where relname = 'memberships' and reltuples = 0 and relpages > 0") == 1)

        let discarded = try rowsDiscarded(by: Self.joins, in: database, plansOver: 0)
        #expect(try database.count("select count(*) from notifications where kind = 'joined'") == 400)
        #expect(discarded <= 4 * 400, "the triggers' plans read and discarded \(discarded) rows for 400 joins")
    }

    @Test("pairings into ride_pairings that statistics call empty: the ride messages are queued from the statement's own rows, not by comparing every pairing with every other")
    func rideMessages() throws {
        let database = try TestDatabase()
        try database.connect().script(Self.holdStatistics + Self.rides + ";" + Self.pairings
                                      + "; delete from notifications; delete from ride_pairings; analyze ride_pairings, notifications")
        #expect(try database.count("select count(*) from pg_class where relname = 'ride_pairings' and reltuples = 0 and relpages > 0") == 1)

        let discarded = try rowsDiscarded(by: Self.pairings, in: database, plansOver: 50)
        #expect(try database.count("select count(*) from notifications where kind = 'ride-paired'") == 24_000)
        #expect(try database.count("select count(*) from notifications where kind = 'ride-full'") == 3000)
        #expect(discarded <= 4 * 12_000, "the triggers' plans read and discarded \(discarded) rows for 12,000 pairings")
    }

    /// Runs `statement` with auto_explain reporting the plan of every statement, nested ones
    /// included, that runs longer than `milliseconds` (0: every one; the statements run once per row
    /// are too many to print at thousands of rows, and only whole-statement work can reach 50 ms),
    /// and returns the rows those plans removed by a filter or a join filter, foreign-key checks aside.
    private func rowsDiscarded(by statement: String, in database: TestDatabase, plansOver milliseconds: Int) throws -> Int {
        let result = try CommandResult.run([database.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", statement],
                                           executable: "/usr/bin/psql",
                                           environment: ["PGOPTIONS": AutoExplain.options(over: milliseconds)])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(AutoExplain.rowsDiscarded(reportedIn: result.stderr), "no plans reported: \(result.stderr.prefix(500))")
    }
}
