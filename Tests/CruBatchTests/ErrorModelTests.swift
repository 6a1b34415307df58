import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// What reaches the command line: crubatch's own failures are not blamed on the user's file.
@Suite("exit codes of the error model")
struct ErrorModelTests {
    @Test("a query of crubatch's that the database refuses exits 70 with 'this is a bug', not 65")
    func brokenQueryIsSoftwareError() throws {
        let database = try TestDatabase()
        // A schema that no longer matches the code: the export's own SELECT now fails (SQLSTATE 42703).
        try database.connect().execute("alter table community_groups drop column location")
        let export = try database.run(["export", "groups"])
        #expect(export.status == 70, "\(export.stderr)")
        #expect(export.stderr.contains("this is a bug in crubatch"))
        #expect(export.stderr.contains("42703"))

        let groups = TestEnvironment.fixture("central-coast")
        let load = try database.run(["import", "--dir", groups])
        #expect(load.status == 70, "\(load.stderr)")
        #expect(!load.stderr.contains("error["), "the input files are fine; nothing may be blamed on them")
    }

    @Test("SQLSTATEs map to the exit status that tells a script what to do")
    func sqlStates() {
        func status(_ kind: PostgresError.Kind, _ state: String?) -> CruBatch.ExitStatus {
            PostgresError(kind: kind, sqlState: state, message: "m").exitStatus
        }
        #expect(status(.connection, nil) == .unavailable)
        #expect(status(.query, "08006") == .unavailable)
        #expect(status(.query, "57P01") == .unavailable)
        #expect(status(.query, "53300") == .unavailable)
        #expect(status(.query, "40P01") == .temporaryFailure)
        #expect(status(.query, "40001") == .temporaryFailure)
        #expect(status(.lockNotAvailable, "55P03") == .temporaryFailure)
        #expect(status(.query, "42601") == .software)
        #expect(status(.copy, "22P02") == .software)
        #expect(status(.decoding, nil) == .software)
    }

    @Test("a result that does not decode names the column and the query")
    func decodingError() throws {
        let database = try TestDatabase()
        let connection = try database.connect()
        let row = try #require(try connection.query("select null::int as members, 'x' as code").rows.first)
        let error = try #require(throws: PostgresError.self) { try row.decode(Int.self, "members") }
        #expect(error.kind == .decoding)
        #expect(error.description.contains("\"members\""))
        #expect(error.description.contains("select null::int as members"))
    }
}
