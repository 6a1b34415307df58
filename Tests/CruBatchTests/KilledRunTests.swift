import CruBatchTestSupport
import Foundation
import Testing

@Suite("killed imports")
struct KilledRunTests {
    private let scratch = ScratchDirectory()

    /// `count` generated students, with `lastName` for all of them: a file to load, then change.
    private func students(_ count: Int, lastName: String, named name: String) throws -> String {
        var text = "email,first_name,last_name,phone,school_year\n"
        text.reserveCapacity(count * 64)
        for index in 0..<count {
            text += "student\(index)@example.edu,First\(index),\(lastName),"
            text += "805-555-\(1000 + index % 9000),\(1 + index % 5)\n"
        }
        return try scratch.writeFile(name, text)
    }

    /// The import is killed while its UPDATE waits for a row this test holds, as a long statement
    /// would keep the server busy: the server must notice the client is gone and give up its locks.
    @Test("after SIGKILL the server drops the import within seconds: a new import loads and runs shows the run killed")
    func killedImport() throws {
        let database = try TestDatabase()
        let original = try students(20_000, lastName: "Before", named: "seed.csv")
        let seed = try database.run(["import", "students", original])
        try #require(seed.status == 0, "\(seed.stderr)")
        let changed = try students(20_000, lastName: "After", named: "changed.csv")
        let newcomer = try scratch.writeFile("newcomer.csv", "email,first_name,last_name\nnew.comer@example.edu,New,Comer\n")

        let holder = try database.connect()
        try holder.execute("begin")
        try holder.query("select id from people where email = 'student19999@example.edu' for update")
        defer { try? holder.execute("rollback") }
        let killed = try database.start(["import", "students", changed])
        // Reading and checking 20,000 rows takes a debug build seconds alone, and tens of seconds
        // while the whole suite runs beside it.
        let waiting = try waitUntil(timeout: 180) {
            try database.count("""
                select count(*) from pg_stat_activity
                where datname = current_database() and application_name = 'crubatch'
                and wait_event_type = 'Lock' and query like '%update people%'
                """) == 1
        }
        killed.killHard()
        try #require(waiting, "the import's update never waited for the held row")
        let killedAt = Date()

        // Until the server notices its client is gone, the killed import holds its lock (exit 75).
        var next = try database.run(["import", "students", newcomer])
        try waitUntil(timeout: 3) {
            if next.status == 75 { next = try database.run(["import", "students", newcomer]) }
            return next.status != 75
        }
        let seconds = Date().timeIntervalSince(killedAt)
        #expect(next.status == 0, "\(seconds) s after the kill: exit \(next.status): \(next.stderr)")

        let runs = try database.run(["runs"])
        let killedRun = runs.stdout.split(separator: "\n").first { $0.contains(changed) }
        #expect(killedRun?.contains(" killed ") == true, "\(runs.stdout)")
        #expect(try database.count("select count(*) from import_runs where status = 'running'") == 1)
        #expect(try database.count("select count(*) from people where last_name = 'After'") == 0)
    }
}
