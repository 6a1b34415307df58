@testable import CruBatch
import CruBatchTestSupport
import PostgresClient
import Testing

/// The frame every writing command runs in: what it records, locks, commits and rolls back.
@Suite("writer runs")
struct WriterRunTests {
    private struct Stop: Error {}

    private func addCampus(_ code: String, on connection: PostgresConnection) throws {
        try connection.query("insert into campuses (code, name) values (\(code), \(code))")
    }

    @Test("the words import_runs.kind stores are those runs and undo have always read")
    func storedKinds() {
        let commands: [RunKind] = [.place, .forget, .ridesCancel, .ridesPair]
        #expect(commands.map(\.stored) == ["place", "forget", "rides-cancel", "rides-pair"])
        for kind in commands + Kind.allCases.map(RunKind.import) {
            #expect(RunKind(stored: kind.stored) == kind)
        }
        #expect(RunKind.import(.rideOffers).stored == "ride-offers")
        #expect(RunKind(stored: "validate") == nil)
        #expect(RunLog.description(kind: "groups", file: "groups.csv") == "import groups groups.csv")
        #expect(RunLog.description(kind: "rides-cancel", file: "offer 12") == "rides cancel offer 12")
        #expect(RunLog.description(kind: "forget", file: "-") == "forget")
    }

    @Test("work that throws is rolled back, its run recorded as failed, and its locks are free again")
    func failedWork() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        let run = WriterRun(connection: connection, kind: .place, file: "answers.csv",
                            locks: .writers([.groups], against: "a place"))
        #expect(throws: Stop.self) {
            try run.perform { _ in
                try addCampus("calpoly", on: connection)
                throw Stop()
            }
        }
        #expect(try database.count("select count(*) from campuses") == 0)
        #expect(try database.count("""
            select count(*) from import_runs
            where kind = 'place' and file_name = 'answers.csv' and status = 'failed' and error like '%Stop%'
            """) == 1)
        #expect(try database.count("""
            select count(*) from pg_locks where locktype = 'advisory' and database = (
                select oid from pg_database where datname = current_database())
            """) == 0)
    }

    @Test("a run files its changes under its id, forget files none, and a dry run keeps nothing")
    func changesAndDryRun() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        func changes(of id: Int) throws -> Int {
            try database.count("select count(*) from run_changes where run_id = \(id) and table_name = 'campuses'")
        }
        for (kind, code, filed) in [(RunKind.import(.campuses), "calpoly", 1), (.forget, "ucsb", 0)] {
            let run = WriterRun(connection: connection, kind: kind, file: "-",
                                locks: .imports([.campuses], wait: false))
            let id = try run.perform { _ in try addCampus(code, on: connection) } then: { ids in
                try run.log.finish(ids[0], status: .succeeded)
            }.ids[0]
            #expect(try changes(of: id) == filed, "\(kind)")
        }
        let dry = WriterRun(connection: connection, kind: .import(.campuses), file: "-", dryRun: true,
                            locks: .writers([.campuses], against: "an import of campuses"))
        try dry.perform { _ in try addCampus("cuesta", on: connection) }
        #expect(try database.count("select count(*) from campuses") == 2)
        #expect(try database.count("select count(*) from import_runs where dry_run and status = 'failed'") == 0)
    }

    @Test("a lock held elsewhere refuses a run: a writer's once it is recorded (as failed), an import's before")
    func lockHeld() throws {
        let database = try TestDatabase()
        let holder = try database.connect()
        try holder.execute("begin")
        try WriterLocks.hold([.students], on: holder, against: "a test")
        defer { try? holder.execute("rollback") }
        let connection = try database.connect()
        let writer = WriterRun(connection: connection, kind: .ridesPair, file: "upcoming events",
                               locks: .writers([.rideOffers], against: "another rides pair"))
        let busy = #expect(throws: CruBatchError.self) { try writer.perform { _ in } }
        #expect(busy?.description == "another rides pair is running in another process; try again later")
        #expect(try database.count("select count(*) from import_runs where status = 'failed'") == 1)
        let importer = WriterRun(connection: connection, kind: .import(.students), file: "students.csv",
                                 locks: .imports([.students], wait: false))
        let importing = #expect(throws: CruBatchError.self) { try importer.perform { _ in } }
        #expect(importing?.description.hasPrefix(
            "another import of students (or a place, rides pair, undo or forget that writes it) is running") == true)
        #expect(try database.count("select count(*) from import_runs") == 1)
    }
}
