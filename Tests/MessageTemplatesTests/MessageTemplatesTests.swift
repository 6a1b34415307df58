import CruBatchTestSupport
import Foundation
@testable import MessageTemplates
import Testing

@Suite struct MessageTemplatesTests {
    static let schema = TemplateSchema([
        "student_name": .value,
        "group_name": .value,
        "phone": .value,
        "leaders": .section(["name": .value, "email": .value]),
    ])
    static let defaults = [
        "joined": """
            Subject: {{student_name}} joined {{group_name}}

            Hi,

            {{student_name}} joined {{group_name}}.
            {{#phone}}Phone: {{phone}}{{/phone}}{{^phone}}No phone given.{{/phone}}
            {{#leaders}}
            - {{name}} <{{email}}>
            {{/leaders}}
            """,
    ]

    func load(_ files: [String: String] = [:]) throws -> MessageTemplates {
        try withScratchDirectory { directory in
            for (name, text) in files { try writeFile(directory + "/" + name, text) }
            return try MessageTemplates(defaults: Self.defaults, schemas: ["joined": Self.schema],
                                        directory: files.isEmpty ? nil : URL(fileURLWithPath: directory))
        }
    }

    /// The error loading `text` as the folder's joined.mustache gives, nil when it loads.
    func loadError(_ text: String, file: String = "joined.mustache") throws -> TemplateError? {
        do {
            _ = try load([file: text])
            return nil
        } catch let error as TemplateError {
            return error
        }
    }

    @Test func rendersSubjectAndPlainTextBodyWithoutHTMLEscaping() throws {
        let message = try load().render("joined", [
            "student_name": "Ana <Bee> & Co", "group_name": "Poly Men's", "phone": "(805) 555-0203",
            "leaders": [["name": "Jo", "email": "jo@example.org"], ["name": "Al", "email": "al@example.org"]],
        ])
        #expect(message.subject == "Ana <Bee> & Co joined Poly Men's")
        #expect(message.body == """
            Hi,

            Ana <Bee> & Co joined Poly Men's.
            Phone: (805) 555-0203
            - Jo <jo@example.org>
            - Al <al@example.org>

            """)
    }

    @Test func anAbsentValueTakesTheInvertedSection() throws {
        let message = try load().render("joined", ["student_name": "Ana", "group_name": "G", "leaders": [[String: Any]]()])
        #expect(message.body.contains("No phone given."))
        #expect(!message.body.contains("Phone:"))
    }

    @Test func aFileInTheFolderReplacesTheDefault() throws {
        let templates = try load(["joined.mustache": "Subject: Welcome {{student_name}}!\r\n\r\nBody for {{group_name}}\r\n"])
        let message = templates.render("joined", ["student_name": "Ana", "group_name": "G"])
        #expect(message.subject == "Welcome Ana!")
        #expect(message.body == "Body for G\n")
    }

    @Test func anUnknownFieldIsRefusedWithFileLineAndColumn() throws {
        let error = try #require(try loadError("Subject: Hi\n\nHello {{student_name}}\nYour group: {{grup_name}}\n"))
        #expect(error.file.hasSuffix("/joined.mustache"))
        #expect(error.line == 4)
        #expect(error.column == 13)
        #expect(error.message.contains("unknown field \"grup_name\""))
        #expect(error.message.contains("group_name"))
    }

    @Test func anUnknownFieldInTheSubjectIsOnLineOne() throws {
        let error = try #require(try loadError("Subject: {{studnet}} joined\n\nbody\n"))
        #expect(error.line == 1)
        #expect(error.column == 10)
    }

    @Test func fieldsOfASectionAreKnownOnlyInsideIt() throws {
        #expect(try loadError("Subject: x\n\n{{#leaders}}{{name}} {{student_name}}{{/leaders}}\n") == nil)
        let outside = try #require(try loadError("Subject: x\n\n{{#leaders}}{{/leaders}}\n{{name}}\n"))
        #expect(outside.line == 4)
        #expect(try #require(try loadError("Subject: x\n\n{{leaders.name}}\n{{leaders.phone}}\n")).line == 4)
    }

    @Test func sectionsMustCloseInOrder() throws {
        let unclosed = try #require(try loadError("Subject: x\n\nline\n{{#leaders}}\n{{name}}\n"))
        #expect(unclosed.line == 4)
        #expect(unclosed.message.contains("never closed"))
        let crossed = try #require(try loadError("Subject: x\n\n{{#leaders}}\n{{/phone}}\n"))
        #expect(crossed.line == 4)
        #expect(crossed.message.contains("opened on line 3"))
    }

    @Test func transformsAreCheckedToo() throws {
        #expect(try loadError("Subject: {{uppercased(group_name)}}\n\n{{count(leaders)}} leaders\n") == nil)
        #expect(try #require(try loadError("Subject: x\n\n{{shout(group_name)}}\n")).message.contains("unknown transform"))
        #expect(try #require(try loadError("Subject: x\n\n{{uppercased(gruop)}}\n")).message.contains("unknown field"))
    }

    @Test func theShapeOfTheFileIsChecked() throws {
        #expect(try #require(try loadError("Hello {{student_name}}\n")).line == 1)
        #expect(try #require(try loadError("Subject:   \n\nbody\n")).message == "the subject is empty")
        #expect(try #require(try loadError("Subject: x\n\n  \n")).message == "the body is empty")
        #expect(try #require(try loadError("Subject: x\n\n{{> footer}}\n")).message.contains("partials"))
        #expect(try #require(try loadError("Subject: x\n\nHi {{student_name\n")).line == 3)
    }

    @Test func aFileNamedAfterNoMessageIsRefused() throws {
        let error = try #require(try loadError("Subject: x\n\ny\n", file: "joinde.mustache"))
        #expect(error.file.hasSuffix("joinde.mustache"))
        #expect(error.message.contains("joined.mustache"))
    }

    @Test func aMissingFolderIsRefused() throws {
        #expect(throws: TemplateError.self) {
            try MessageTemplates(defaults: Self.defaults, schemas: ["joined": Self.schema],
                                 directory: URL(fileURLWithPath: "/nonexistent/templates"))
        }
    }

    /// Checking a template reads it once from start to end: 40,000 fields are checked in a moment,
    /// where each tag once made the checker re-read the rest of the text (42 s).
    @Test(.timeLimit(.minutes(1))) func checkingIsLinearInTheTemplatesLength() throws {
        let body = String(repeating: "{{student_name}} ", count: 40_000)
        let started = ContinuousClock.now
        try TagChecker(file: "big.mustache", schema: Self.schema).check(body, line: 3, column: 1)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(10), "checking took \(elapsed)")
        // And it still finds a fault at the very end, with its position.
        #expect(throws: TemplateError(file: "big.mustache", line: 3, column: 40_000 * 17 + 1,
                                      message: "unknown field \"nope\"; the fields here are: group_name, leaders, phone, student_name")) {
            try TagChecker(file: "big.mustache", schema: Self.schema).check(body + "{{nope}}", line: 3, column: 1)
        }
    }

    /// The renderer's own parser slows with a template's length, so the file limit keeps its worst
    /// case (a file of nothing but tags) to about a second.
    @Test(.timeLimit(.minutes(1))) func aTemplateAtTheSizeLimitLoadsInBoundedTime() throws {
        var text = "Subject: {{group_name}}\n\n"
        while text.utf8.count + 16 <= MessageTemplates.maximumFileSize { text += "{{student_name}}" }
        let started = ContinuousClock.now
        #expect(try loadError(text) == nil)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(20), "loading took \(elapsed)")
    }

    @Test func aTemplateFileOverTheSizeLimitIsRefusedBeforeItIsRead() throws {
        let text = "Subject: {{group_name}}\n\n" + String(repeating: "x", count: MessageTemplates.maximumFileSize)
        let error = try #require(try loadError(text))
        #expect(error.file.hasSuffix("joined.mustache"))
        #expect(error.message.contains("at most 64 KB"), "\(error.message)")
        // At the limit it loads.
        let fits = "Subject: {{group_name}}\n\n" + String(repeating: "x", count: MessageTemplates.maximumFileSize - 30)
        #expect(try loadError(fits) == nil)
    }
}
