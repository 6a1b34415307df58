import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// Every kind's export imports back unchanged, on the values hardest to write back: phone
/// extensions (`;ext=`), international numbers, cells that look like formulas, quotes, commas and
/// line breaks, Hawaiian and Irish names, an all-day and a repeating event, money with a thousands
/// separator (fixtures/round-trip), beside the central coast, its terms and its attendance.
@Suite("round trip per kind")
struct RoundTripTests {
    /// The exports of the loaded database, and of a fresh one loaded from them.
    struct Exports: Sendable {
        let first: String
        let second: String
        /// What re-importing the first exports into the database they came from would do, per kind.
        let wouldChange: [String: Int]
    }

    private static let scratch = ScratchDirectory()

    /// Made once for every kind's test.
    private static let exports: Result<Exports, any Error> = Result {
        let database = try TestDatabase()
        for arguments in [["--dir", TestEnvironment.fixture("central-coast")], ["--dir", TestEnvironment.fixture("round-trip")],
                          ["terms", TestEnvironment.fixture("terms/terms.csv")],
                          ["--dir", TestEnvironment.fixture("attendance")]] {
            let load = try database.run(["import"] + arguments)
            guard load.status == 0 else { throw TestSetupError("import \(arguments): \(load.stderr)") }
        }
        let first = try exportAll(database, into: "first")
        let again = try database.run(["import", "--dir", first, "--dry-run", "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        var wouldChange: [String: Int] = [:]
        for file in report["files"] as? [[String: Any]] ?? [] {
            let kind = file["kind"] as? String ?? "?"
            wouldChange[kind] = ["would_insert", "would_update", "would_restore", "would_archive", "rejected"]
                .reduce(0) { $0 + (file[$1] as? Int ?? 0) }
        }
        let fresh = try TestDatabase()
        let load = try fresh.run(["import", "--dir", first])
        guard load.status == 0 else { throw TestSetupError("importing the exports: \(load.stderr)") }
        return Exports(first: first, second: try exportAll(fresh, into: "second"), wouldChange: wouldChange)
    }

    private static func exportAll(_ database: TestDatabase, into name: String) throws -> String {
        let folder = try scratch.folder(name)
        for kind in Kind.allCases {
            let result = try database.run(["export", kind.rawValue, "--out", "\(folder)/\(kind.fileName)"])
            guard result.status == 0 else { throw TestSetupError("export \(kind.rawValue): \(result.stderr)") }
        }
        return folder
    }

    @Test("export, import back: nothing would change; into a fresh database and out again: the same bytes",
          arguments: Kind.allCases)
    func roundTrip(_ kind: Kind) throws {
        let exports = try Self.exports.get()
        #expect(exports.wouldChange[kind.rawValue] == 0, "\(kind.rawValue): \(exports.wouldChange)")
        let first = try String(contentsOfFile: "\(exports.first)/\(kind.fileName)", encoding: .utf8)
        let second = try String(contentsOfFile: "\(exports.second)/\(kind.fileName)", encoding: .utf8)
        #expect(first == second)
        #expect(first.split(separator: "\r\n").count > 2, "\(kind.rawValue) holds rows")
    }

    @Test("the hardest values come back as they were stored")
    func hardValues() throws {
        let exports = try Self.exports.get()
        let students = try String(contentsOfFile: "\(exports.first)/students.csv", encoding: .utf8)
        #expect(students.contains("formula@example.edu,\"=HYPERLINK(\"\"http://x\"\")\",@SUM(A1),+18085550101;ext=7,"))
        #expect(students.contains("comma@example.edu,\"Kalani, Jr.\",\"Akana \"\"Kai\"\"\",+18085550177,"))
        let leaders = try String(contentsOfFile: "\(exports.first)/leaders.csv", encoding: .utf8)
        #expect(leaders.contains("keala.oneill@cru.org,Kealaʻula,O'Neill,+18085550142;ext=12,"))
        let missions = try String(contentsOfFile: "\(exports.first)/missions.csv", encoding: .utf8)
        #expect(missions.contains(",1234.50,"))
    }
}
