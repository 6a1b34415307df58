import Foundation
import Mustache

/// A message rendered from its template: one subject line and a plain-text body.
public struct RenderedMessage: Sendable, Equatable {
    public let subject: String
    public let body: String
}

/// The wording of every message, as Mustache templates: compiled-in defaults, each replaceable by a
/// file `NAME.mustache` in a templates folder. A template is a `Subject:` line, a blank line and
/// the body:
///
///     Subject: {{student_name}} joined {{group_name}}
///
///     Hi {{leader_first_name}}, ...
///
/// Every template is checked against its schema when loaded, so a misspelt field stops the run
/// before anything is sent, with the file and line.
public struct MessageTemplates: Sendable {
    private struct Template: Sendable {
        let subject: MustacheTemplate
        let body: MustacheTemplate
    }

    private let templates: [String: Template]

    /// The largest template file read, in bytes. A message's wording is a few kilobytes; anything
    /// near this is a mistake (a wrong file, a generated one), refused before it is read whole.
    public static let maximumFileSize = 64 * 1024

    /// Loads the `defaults` (name → template text), then every `*.mustache` file in `directory`
    /// over them. A file whose name is not one of `schemas`' is refused rather than ignored.
    public init(defaults: [String: String], schemas: [String: TemplateSchema],
                directory: URL?) throws(TemplateError) {
        var templates: [String: Template] = [:]
        for (name, text) in defaults {
            templates[name] = try Self.compile(text, file: "built-in \(name)", schema: schemas[name] ?? TemplateSchema([:]))
        }
        if let directory {
            for file in try Self.templateFiles(in: directory) {
                let name = file.deletingPathExtension().lastPathComponent
                guard let schema = schemas[name] else {
                    throw TemplateError(file: file.path, message: "no message is called \"\(name)\"; "
                        + "template files are named: " + schemas.keys.sorted().map { "\($0).mustache" }.joined(separator: ", "))
                }
                let data = try Self.read(file)
                guard let text = String(data: data, encoding: .utf8) else {
                    throw TemplateError(file: file.path, message: "not UTF-8 text: save it as UTF-8")
                }
                templates[name] = try Self.compile(text, file: file.path, schema: schema)
            }
        }
        self.templates = templates
    }

    /// Renders template `name` with `values`: lists as `[[String: Any]]`, flags as `Bool`, absent
    /// values left out. Unknown names render nothing: the caller's names are its own schema's.
    public func render(_ name: String, _ values: [String: Any]) -> RenderedMessage {
        guard let template = templates[name] else { return RenderedMessage(subject: "", body: "") }
        let subject = template.subject.render(values).split(whereSeparator: \.isNewline).joined(separator: " ")
        return RenderedMessage(subject: subject.trimmingWhitespace(), body: template.body.render(values))
    }

    /// The bytes of a template file, refused past `maximumFileSize`.
    private static func read(_ file: URL) throws(TemplateError) -> Data {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw TemplateError(file: file.path, message: "cannot read the template: \(error.localizedDescription)")
        }
        guard data.count <= maximumFileSize else {
            throw TemplateError(file: file.path, message: "a template may be at most \(maximumFileSize / 1024) KB; "
                + "this file is larger: is it the right file?")
        }
        return data
    }

    private static func templateFiles(in directory: URL) throws(TemplateError) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw TemplateError(file: directory.path, message: "no such templates folder") }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw TemplateError(file: directory.path, message: "cannot list the templates folder: \(error.localizedDescription)")
        }
        return names.filter { $0.hasSuffix(".mustache") && !$0.hasPrefix(".") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// Splits a template into its subject and body, checks both against `schema` and parses them.
    private static func compile(_ source: String, file: String, schema: TemplateSchema) throws(TemplateError) -> Template {
        let lines = source.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        let subjectPrefix = "subject:"
        guard let first = lines.first, first.lowercased().hasPrefix(subjectPrefix) else {
            throw TemplateError(file: file, line: 1, message: "the first line must be the subject: \"Subject: ...\"")
        }
        let subjectText = String(first.dropFirst(subjectPrefix.count))
        let subject = subjectText.trimmingWhitespace()
        if subject.isEmpty { throw TemplateError(file: file, line: 1, message: "the subject is empty") }
        // The blank line after the subject, as in an email, may be left out.
        let bodyLine = lines.count > 1 && lines[1].trimmingWhitespace().isEmpty ? 3 : 2
        let body = lines.dropFirst(bodyLine - 1).joined(separator: "\n")
        if body.trimmingWhitespace().isEmpty {
            throw TemplateError(file: file, line: bodyLine, message: "the body is empty")
        }
        let checker = TagChecker(file: file, schema: schema)
        let subjectColumn = subjectPrefix.count + subjectText.prefix(while: \.isWhitespace).count + 1
        try checker.check(subject, line: 1, column: subjectColumn)
        try checker.check(body, line: bodyLine, column: 1)
        return Template(subject: try parse(subject, file: file, line: 1), body: try parse(body, file: file, line: bodyLine))
    }

    /// Parses as plain text (no HTML escaping: these are text emails).
    private static func parse(_ text: String, file: String, line: Int) throws(TemplateError) -> MustacheTemplate {
        do {
            return try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT }}" + text)
        } catch let error as MustacheTemplate.ParserError {
            throw TemplateError(file: file, line: line + error.context.lineNumber - 1, message: "\(error.error)")
        } catch {
            throw TemplateError(file: file, line: line, message: "\(error)")
        }
    }
}
