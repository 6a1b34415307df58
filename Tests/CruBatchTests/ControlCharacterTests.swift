@testable import CruBatch
import CruBatchTestSupport
import CSVStream
import Foundation
import Testing

@Suite("control characters")
struct ControlCharacterTests {
    private let scratch = ScratchDirectory()

    @Test("one-line cells refuse line breaks and other control characters", arguments: [
        ("Ford\r\nBcc: everyone@example.org", "a line break (U+000D) at character 5"),
        ("Ford\nBcc: x", "a line break (U+000A) at character 5"),
        ("Room\tB", "a control character (U+0009) at character 5"),
        ("Zoë\u{1B}[31m", "a control character (U+001B) at character 4"),
        ("Café\u{85}Bcc", "a line break (U+0085) at character 5"),
        ("Hall\u{2028}Bcc", "a line break (U+2028) at character 5"),
        ("Hall\u{7F}", "a control character (U+007F) at character 5"),
    ])
    func oneLineRefused(cell: String, message: String) throws {
        let problem = #expect(throws: CellProblem.self) { try CellNormalizer.read(cell, as: .text) }
        #expect(problem?.code == .controlCharacter)
        #expect(problem?.message == "contains \(message)")
        // In a list cell, CR and LF separate items (each item is then one line); every other one is refused.
        if cell.contains(where: \.isNewline) && !cell.contains("\u{85}") && !cell.contains("\u{2028}") {
            #expect(try CellNormalizer.read("a;" + cell, as: .list(.text)).value?.split(separator: ";").count == 3)
        } else {
            #expect(throws: CellProblem.self) { try CellNormalizer.read("a;" + cell, as: .list(.text)) }
        }
    }

    @Test("descriptions keep line breaks and tabs and refuse the other control characters")
    func multilineKept() throws {
        let description = "Bring a Bible.\r\n\tAnd a friend."
        #expect(try CellNormalizer.read(description, as: .multilineText).value == description)
        #expect(throws: CellProblem.self) { try CellNormalizer.read("Bring\u{7}", as: .multilineText) }
        #expect(try CellNormalizer.read("  Tomás Pérez — “Zoë” ’s  ", as: .text).value == "Tomás Pérez — “Zoë” ’s")
    }

    @Test("import refuses a name with a line break at file:line:column and loads nothing; a description keeps its own")
    func importRefuses() throws {
        let database = try TestDatabase()
        let forged = "bad@example.edu,Eve,\"Smith\r\nBcc: everyone@example.org\"\n"
        let students = try scratch.writeFile("students.csv", "email,first_name,last_name\nok@example.edu,Ok,Student\n" + forged)
        let refused = try database.run(["import", "students", students])
        #expect(refused.status == 1)
        let expected = "\(students):3:3: error[control-character]: last_name: contains a line break (U+000D)"
        #expect(refused.stderr.contains(expected), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Bcc"))
        #expect(try database.count("select count(*) from people") == 0)

        let campuses = try scratch.writeFile("campuses.csv", "code,name\ncalpoly,Cal Poly\n")
        let ministries = try scratch.writeFile(
            "ministries.csv", "code,name,campus,description\ncru-calpoly,Cru,calpoly,\"Weekly meeting.\nBring a friend.\"\n")
        #expect(try database.run(["import", "campuses", campuses]).status == 0)
        let loaded = try database.run(["import", "ministries", ministries])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let stored = try database.connect().query("select description from ministries").text
        #expect(stored == "Weekly meeting.\nBring a friend.")
    }
}
