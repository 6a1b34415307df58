@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("concurrent imports")
struct ConcurrentImportTests {
    /// Two `import --dir --wait` are held at the door (this test holds every kind's lock), then let
    /// in at the same moment: taking the kinds in different orders, they would deadlock.
    @Test("two import --dir --wait let in at once both load: the kind locks are taken in one order")
    func twoWaitingImports() throws {
        let database = try TestDatabase()
        let command = ["import", "--dir", TestEnvironment.fixture("central-coast"), "--wait"]
        for trial in 1...4 {
            let door = try database.connect()
            for kind in Kind.allCases { try door.advisoryLock(WriterLocks.importKey(kind)) }
            let imports = try [database.start(command), database.start(command)]
            try #require(waitUntil(timeout: 20) {
                try database.count("""
                    select count(*) from pg_locks l join pg_database d on d.oid = l.database
                    where d.datname = current_database() and l.locktype = 'advisory' and not l.granted
                    """) == 2
            }, "trial \(trial): the imports never both waited for a lock")
            try door.execute("select pg_advisory_unlock_all()")
            for result in try imports.map({ try $0.finish() }) {
                #expect(result.status == 0, "trial \(trial): exit \(result.status): \(result.stderr)")
            }
        }
        #expect(try database.count("select count(*) from import_runs where status <> 'succeeded'") == 0)
    }
}

