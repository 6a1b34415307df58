import CruBatchTestSupport
import Foundation
import Testing

/// `import --timings` says where a load's time went: each phase with its seconds on standard error,
/// none counted twice, the merge's parts named as they ran.
@Suite("import --timings")
struct ImportTimingsTests {
    private let scratch = ScratchDirectory()

    /// The phase lines of a `--timings` table on `stderr`: each name with its seconds.
    private func phases(in stderr: String) throws -> [(name: String, seconds: Double)] {
        let lines = stderr.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "timings:"), "no timings table in: \(stderr.suffix(1500))")
        return try lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.map { line in
            // "  NAME   SECONDS s  SHARE%"
            let words = line.split(separator: " ")
            let seconds = try #require(words.count >= 4 ? Double(words[words.count - 3]) : nil, "\(line)")
            return (words.dropLast(3).joined(separator: " "), seconds)
        }
    }

    @Test("a first load, a re-import with changes and a dry run each list their phases, which fit inside the total")
    func phasesAddUp() throws {
        let database = try TestDatabase()
        let setup = try database.run(["import", "campuses", TestEnvironment.fixture("central-coast/campuses.csv")])
        try #require(setup.status == 0, "\(setup.stderr)")
        try #require(try database.run(["import", "ministries", TestEnvironment.fixture("central-coast/ministries.csv")]).status == 0)
        let students = try String(contentsOfFile: TestEnvironment.fixture("central-coast/students.csv"), encoding: .utf8)

        let first = try database.run(["import", "students", TestEnvironment.fixture("central-coast/students.csv"), "--timings"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stdout.contains("timings:"), "the table goes to stderr")
        let loaded = try phases(in: first.stderr)
        let names = loaded.map(\.name)
        for phase in ["read, check and encode rows (client)", "COPY into staging (waiting on the server)", "database checks",
                      "merge: insert", "merge: lists", "statistics of the merged tables", "commit", "total"] {
            #expect(names.contains(phase), "no \"\(phase)\" in \(names)")
        }
        #expect(!names.contains("merge: update (with the change log)"), "a first load updates nothing")
        // No phase is counted twice: the phases measured fit inside the whole command, and what is
        // left (connecting, the schema check) is not negative.
        let total = try #require(loaded.last { $0.name == "total" }).seconds
        let rest = try #require(loaded.first { $0.name.hasPrefix("the rest") }).seconds
        let measured = loaded.filter { $0.name != "total" && !$0.name.hasPrefix("the rest") }.map(\.seconds)
        #expect(measured.allSatisfy { $0 >= 0 }, "\(loaded)")
        #expect(rest >= 0 && measured.reduce(0, +) <= total + 0.001, "the phases add to \(measured.reduce(0, +)) s of \(total) s")

        // The same students with one last name changed: the merge updates, and logs the change.
        var lines = students.components(separatedBy: "\n")
        var cells = lines[1].components(separatedBy: ",")
        cells[2] += "-Ward"
        lines[1] = cells.joined(separator: ",")
        let changed = try scratch.writeFile("students.csv", lines.joined(separator: "\n"))
        let again = try database.run(["import", "students", changed, "--timings"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try phases(in: again.stderr).map(\.name).contains("merge: update (with the change log)"))
        #expect(try database.count("select count(*) from people where last_name like '%-Ward'") == 1)

        let dry = try database.run(["import", "students", changed, "--timings", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryNames = try phases(in: dry.stderr).map(\.name)
        #expect(dryNames.contains("rollback") && !dryNames.contains("commit"), "\(dryNames)")
        #expect(dryNames.contains("preview: the changes"), "\(dryNames)")
    }

    @Test("the old app's dump (--from keystone) prints its timings too")
    func keystoneDump() throws {
        let database = try TestDatabase()
        let dump = try KeystoneDump.generate(into: try scratch.folder("dump"))
        let migrated = try database.run(["import", "--from", "keystone", dump.bson, "--timings"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let names = try phases(in: migrated.stderr).map(\.name)
        #expect(names.contains("merge: insert") && names.contains("commit") && names.last == "total", "\(names)")
    }
}
