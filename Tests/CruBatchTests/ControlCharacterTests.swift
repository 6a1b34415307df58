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

    @Test("one-line cells refuse bidi controls and invisible characters, named", arguments: [
        ("Smith\u{202E}exe.fdp", "U+202E RIGHT-TO-LEFT OVERRIDE", 6),
        ("Ann\u{202A}a", "U+202A LEFT-TO-RIGHT EMBEDDING", 4),
        ("Ann\u{202D}a", "U+202D LEFT-TO-RIGHT OVERRIDE", 4),
        ("Ann\u{200E}a", "U+200E LEFT-TO-RIGHT MARK", 4),
        ("Ann\u{200F}a", "U+200F RIGHT-TO-LEFT MARK", 4),
        ("Ann\u{061C}a", "U+061C ARABIC LETTER MARK", 4),
        ("Ann\u{2066}a", "U+2066 LEFT-TO-RIGHT ISOLATE", 4),
        ("Ann\u{2069}a", "U+2069 POP DIRECTIONAL ISOLATE", 4),
        ("Ad\u{200B}min", "U+200B ZERO WIDTH SPACE", 3),
        ("Ad\u{2060}min", "U+2060 WORD JOINER", 3),
        ("Ad\u{FEFF}min", "U+FEFF ZERO WIDTH NO-BREAK SPACE", 3),
        ("Pay\u{200C}pal", "U+200C ZERO WIDTH NON-JOINER", 4),
        ("Pay\u{200D}pal", "U+200D ZERO WIDTH JOINER", 4),
        ("\u{200D}\u{0645}", "U+200D ZERO WIDTH JOINER", 1),
    ])
    func invisibleRefused(cell: String, name: String, offset: Int) throws {
        let expected = "contains an invisible formatting character (\(name)) at character \(offset)"
        for type in [CellType.text, .multilineText, .code, .email, .reference] {
            let problem = #expect(throws: CellProblem.self) { try CellNormalizer.read(cell, as: type) }
            #expect(problem?.code == .controlCharacter, "\(type)")
            #expect(problem?.message == expected, "\(type)")
        }
        #expect(throws: CellProblem.self) { try CellNormalizer.read("ok;" + cell, as: .list(.text)) }
    }

    @Test("names keep ZWNJ and ZWJ between letters of scripts that join (Persian, Devanagari); codes and emails never")
    func joinersInNames() throws {
        let persian = "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}"  // می‌خواهم
        let devanagari = "\u{0915}\u{094D}\u{200D}\u{0937}"  // क्‍ष: ZWJ after a virama (a mark)
        for name in [persian, devanagari] {
            #expect(try CellNormalizer.read(name, as: .text).value == name)
            for type in [CellType.code, .email] {
                let problem = #expect(throws: CellProblem.self) { try CellNormalizer.read(name, as: type) }
                #expect(problem?.code == .controlCharacter)
            }
        }
    }

    @Test("import and validate refuse names that hide a bidi override or a zero-width space, at line and column")
    func importRefusesInvisible() throws {
        let database = try TestDatabase()
        let students = TestEnvironment.fixture("hostile/rtl-names.csv")
        for command in ["validate", "import"] {
            let refused = try database.run([command, "students", students])
            #expect(refused.status == 1, "\(refused.stderr)")
            let expected = "\(students):3:3: error[control-character]: last_name: contains an invisible formatting "
                + "character (U+202E RIGHT-TO-LEFT OVERRIDE) at character 6"
            #expect(refused.stderr.contains(expected), "\(refused.stderr)")
        }
        #expect(try database.count("select count(*) from people") == 0)

        let fixture = TestEnvironment.fixture("invalid/control-character/leaders.csv")
        let leaders = try database.run(["validate", "leaders", fixture])
        #expect(leaders.status == 1)
        #expect(leaders.stderr.contains("\(fixture):6:2: error[control-character]: first_name: contains an invisible "
            + "formatting character (U+202E RIGHT-TO-LEFT OVERRIDE) at character 4"), "\(leaders.stderr)")
        let mixed = try scratch.writeFile("leaders.csv", """
            email,first_name,last_name,phone
            ok@cru.org,Ok,Leader,805-555-0101
            ad\u{200B}min@cru.org,Zero,Width,805-555-0102

            """)
        let refused = try database.run(["import", "leaders", mixed, "--format", "json"])
        #expect(refused.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        let diagnostics = document?["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.map { "\($0["code"] ?? ""):\($0["line"] ?? ""):\($0["column"] ?? "")" }
                == ["control-character:3:1"], "\(refused.stdout)")
        #expect(try database.count("select count(*) from people") == 0)
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
