import CruBatchTestSupport
import Foundation
import Testing

/// The walls of docs/ARCHITECTURE.md hold: `scripts/check-architecture` finds no import between
/// modules and no type reference between the domain's folders that the page does not allow, and it
/// names the file and the arrow of one that crosses a wall.
@Suite("architecture: walls between modules and folders")
struct ArchitectureTests {
    private let scratch = ScratchDirectory()
    private static let script = TestEnvironment.root.appendingPathComponent("scripts/check-architecture").path

    @Test("the sources cross no wall, and every import is a declared dependency")
    func sourcesCrossNoWall() throws {
        let result = try CommandResult.run([TestEnvironment.root.path], executable: Self.script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "check-architecture: every arrow is allowed\n")
    }

    @Test("a forbidden import, type reference or underscored API fails, naming the file and the arrow")
    func forbiddenArrowsFail() throws {
        let copy = try scratch.folder("repository")
        for item in ["Sources", "Package.swift", "docs"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.root.appendingPathComponent(item).path,
                                             toPath: copy + "/" + item)
        }
        let weekday = try append("import Mailer\nfunc lastRun() -> RunLog? { nil }\n",
                                 to: "Sources/CruBatch/Kinds/Weekday.swift", in: copy)
        let calendar = try append("import PostgresClient\n", to: "Sources/ICalendar/CalendarEvent.swift", in: copy)
        let command = try append("let name = CruBatchCommand._commandName\n",
                                 to: "Sources/crubatch/CruBatchCommand.swift", in: copy)

        let result = try CommandResult.run([copy], executable: Self.script)
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").map(String.init)
        let walls = "(docs/ARCHITECTURE.md, Walls)"
        let (kinds, icalendar) = ("Sources/CruBatch/Kinds/Weekday.swift", "Sources/ICalendar/CalendarEvent.swift")
        #expect(errors == [
            "\(icalendar):\(calendar): ICalendar → PostgresClient is not an allowed arrow \(walls)",
            "\(icalendar):\(calendar): ICalendar imports PostgresClient, which its target in Package.swift does not "
                + "list among its dependencies",
            "Sources/crubatch/CruBatchCommand.swift:\(command): _commandName is underscored, unstable API; "
                + "use the public one",
            "\(kinds):\(weekday): Kinds → Mailer is not an allowed import \(walls)",
            "\(kinds):\(weekday + 1): Kinds → Runs (RunLog) is not an allowed arrow \(walls)",
            "check-architecture: 5 wall(s) crossed",
        ])
    }

    /// Appends `lines` to the file `path` of the repository copy `root`; the line number of the first.
    private func append(_ lines: String, to path: String, in root: String) throws -> Int {
        let file = root + "/" + path
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try writeFile(file, text + lines)
        return text.split(separator: "\n", omittingEmptySubsequences: false).count
    }
}
