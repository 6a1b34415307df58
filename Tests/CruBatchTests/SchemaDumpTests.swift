import CruBatchTestSupport
import Foundation
import Testing

/// docs/schema.sql is the schema the migrations build: a database that `crubatch migrate` built,
/// dumped by `scripts/schema-dump`, matches it line for line, so the page never drifts from them.
@Suite("schema: docs/schema.sql is what the migrations build")
struct SchemaDumpTests {
    @Test("a freshly migrated database dumps to docs/schema.sql")
    func docsMatchMigrations() throws {
        let database = try TestDatabase()
        let script = TestEnvironment.root.appendingPathComponent("scripts/schema-dump").path
        let dump = try CommandResult.run([database.url], executable: script)
        try #require(dump.status == 0, "\(dump.stderr)")
        let path = TestEnvironment.root.appendingPathComponent("docs/schema.sql").path
        let documented = try String(contentsOfFile: path, encoding: .utf8)
        // Compared as a Bool: a failure shows the first difference, not both texts whole.
        let matches = dump.stdout == documented
        #expect(matches, """
            docs/schema.sql is not the schema the migrations build \(Self.firstDifference(documented, dump.stdout));
            regenerate it with: swift build --product crubatch && scripts/schema-dump --write
            """)
    }

    /// Where two texts part: `at line N: docs/schema.sql has "…", the migrations give "…"`.
    private static func firstDifference(_ documented: String, _ migrated: String) -> String {
        let (left, right) = (documented.components(separatedBy: "\n"), migrated.components(separatedBy: "\n"))
        let line = zip(left, right).prefix { $0 == $1 }.count
        let missing = "(end of text)"
        return "at line \(line + 1): docs/schema.sql has \"\(line < left.count ? left[line] : missing)\", "
            + "the migrations give \"\(line < right.count ? right[line] : missing)\""
    }
}
