import CruBatchTestSupport
import Foundation
import Testing

/// Commands do work in proportion to their rows when the tables have never been analyzed: what a
/// restored dump, or a command run right after a first load or `place` (before autovacuum has looked
/// at the tables), finds; and the writers leave statistics behind them. Without statistics the planner guessed that half the staged emails of a re-import
/// were new, and a check that stops at the first new one scanned every person for every staged row
/// (two minutes for 100,000 students); and it guessed a few dozen people and two hundred lists, and
/// a nightly export right after a first load joined every person to every list (208 s for 100,000).
///
/// Each command runs with auto_explain reporting the plan of each of its statements to its standard
/// error (libpq prints a server's warnings there), and the rows those plans threw away are added up.
@Suite("commands when the tables have no statistics")
struct MissingStatisticsTests {
    private let scratch = ScratchDirectory()

    /// `url` with auto_explain's options: they replace crubatch's own (client_min_messages among them).
    private func explaining(_ url: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options="
            + AutoExplain.options(over: 0).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    @Test("an export right after a first load of 10,000 students with ministries reads each row a bounded number of times")
    func exportAfterFirstLoad() throws {
        let database = try TestDatabase()
        try database.connect().script("alter table people set (autovacuum_enabled = off); alter table person_ministries set (autovacuum_enabled = off)")
        try scratch.writeFile("load/campuses.csv", "code,name\nslo,San Luis Obispo\n")
        try scratch.writeFile("load/ministries.csv", "code,name,campus\ncru-slo,Cru SLO,slo\nepic-slo,Epic SLO,slo\n")
        var students = "email,first_name,last_name,campus,ministries\n"
        for n in 1...10_000 { students += "s\(n)@example.edu,Sam\(n),Student\(n),slo,\(n % 2 == 0 ? "cru-slo" : "cru-slo;epic-slo")\n" }
        try scratch.writeFile("load/students.csv", students)
        let load = try database.run(["import", "--dir", scratch.folder("load")])
        try #require(load.status == 0, "\(load.stderr)")

        let export = try database.run(["export", "students"], environment: ["DATABASE_URL": explaining(database.url)])
        try #require(export.status == 0, "\(export.stderr.suffix(2000))")
        #expect(export.stdout.split(whereSeparator: \.isNewline).count == 10_001)
        let discarded = try #require(AutoExplain.rowsDiscarded(reportedIn: export.stderr),
                                     "no plans reported: \(export.stderr.prefix(500))")
        #expect(discarded <= 10 * 10_000, "the export's plans read and discarded \(discarded) rows for 10,000 students")
    }

    @Test("place and rides pair analyze the tables they wrote when those have no statistics, as an import does")
    func writersLeaveStatistics() throws {
        let database = try TestDatabase()
        let load = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--no-notify"])
        try #require(load.status == 0, "\(load.stderr)")
        // What a restored dump looks like: no statistics (and autovacuum kept out of the test).
        try database.connect().script("""
            alter table memberships set (autovacuum_enabled = off);
            alter table notifications set (autovacuum_enabled = off);
            alter table ride_pairings set (autovacuum_enabled = off);
            delete from pg_statistic where starelid in ('memberships'::regclass, 'notifications'::regclass, 'ride_pairings'::regclass);
            update pg_class set reltuples = -1, relpages = 0 where relname in ('memberships', 'notifications', 'ride_pairings');
            """)
        #expect(try database.count("""
            select count(*) from pg_class where relname in ('memberships', 'notifications', 'ride_pairings') and reltuples >= 0
            """) == 0)

        let place = try database.run(["place", TestEnvironment.fixture("get-involved/answers.csv")])
        #expect(place.status == 1, "\(place.stderr)")
        #expect(try database.count("select count(*) from pg_class where relname in ('memberships', 'notifications') and reltuples > 0") == 2)

        let pair = try database.run(["rides", "pair", "--event", "fall-retreat-2026"])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(try database.count("select count(*) from pg_class where relname = 'ride_pairings' and reltuples > 0") == 1)
    }

    @Test("a dry run of a first load of 3,000 students, its people table analyzed while empty, previews reading each row a bounded number of times")
    func dryRunPreviewOfFirstLoad() throws {
        let database = try TestDatabase()
        try database.connect().script("alter table people set (autovacuum_enabled = off); analyze people")
        var text = "email,first_name,last_name\n"
        for n in 1...3000 { text += "s\(n)@example.edu,Sam\(n),Student\(n)\n" }
        let file = try scratch.writeFile("first.csv", text)
        let result = try database.run(["import", "students", file, "--dry-run", "--diff-limit", "0"],
                                      environment: ["DATABASE_URL": explaining(database.url)])
        try #require(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(result.stdout.contains("3000"), "\(result.stdout.prefix(1500))")
        #expect(try database.count("select count(*) from people") == 0)
        let discarded = try #require(AutoExplain.rowsDiscarded(reportedIn: result.stderr),
                                     "no plans reported: \(result.stderr.prefix(500))")
        #expect(discarded <= 10 * 3000, "the dry run's plans read and discarded \(discarded) rows for 3,000 students")
    }

    @Test("a re-import of 3,000 students into a people table never analyzed reads each person a bounded number of times")
    func reimportWithoutStatistics() throws {
        let database = try TestDatabase()
        try database.connect().script("""
            alter table people set (autovacuum_enabled = off);
            insert into people (email, first_name, last_name)
            select 's' || n || '@example.edu', 'Sam' || n, 'Student' || n from generate_series(1, 3000) n;
            """)
        #expect(try database.count("select count(*) from pg_class where relname = 'people' and reltuples < 0") == 1)

        var text = "email,first_name,last_name\n"
        for n in 1...3000 { text += "s\(n)@example.edu,Sam\(n),Student\(n)\n" }
        text += "new.person@example.edu,Nora,Newcomer\n"
        let file = try scratch.writeFile("students.csv", text)
        let result = try database.run(["import", "students", file], environment: ["DATABASE_URL": explaining(database.url)])
        try #require(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(try database.count("select count(*) from people") == 3001)

        let discarded = try #require(AutoExplain.rowsDiscarded(reportedIn: result.stderr),
                                     "no plans reported: \(result.stderr.prefix(500))")
        #expect(discarded <= 10 * 3000, "the import's plans read and discarded \(discarded) rows for 3,001 students")
    }
}
