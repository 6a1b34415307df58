import CruBatchTestSupport
import Foundation
import Testing

/// An import's own statements do work in proportion to its rows when `people` has never been
/// analyzed: what a restored dump, or a re-import run right after a first load (before autovacuum
/// has looked at the table), finds. Without statistics the planner guesses that half the staged
/// emails are new, and a check that stops at the first new one chose to scan every person for
/// every staged row: two minutes for a re-import of 100,000 students, hours for a million.
///
/// The import runs with auto_explain reporting the plan of each of its statements to its standard
/// error (libpq prints a server's warnings there), and the rows those plans threw away are added up.
@Suite("imports when people has no statistics")
struct MissingStatisticsTests {
    private let scratch = ScratchDirectory()

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
        // The URL's options replace crubatch's own (client_min_messages among them).
        let options = AutoExplain.options(over: 0).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let url = database.url + (database.url.contains("?") ? "&" : "?") + "options=" + options
        let result = try database.run(["import", "students", file], environment: ["DATABASE_URL": url])
        try #require(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(try database.count("select count(*) from people") == 3001)

        let discarded = try #require(AutoExplain.rowsDiscarded(reportedIn: result.stderr),
                                     "no plans reported: \(result.stderr.prefix(500))")
        #expect(discarded <= 10 * 3000, "the import's plans read and discarded \(discarded) rows for 3,001 students")
    }
}
