/// Reads the tags of one Mustache template with their positions, and checks every name against a
/// schema: an unknown field, an unclosed section or a feature left out (partials, delimiter
/// changes) is a `TemplateError` at its line and column, before anything is rendered.
struct TagChecker {
    let file: String
    let schema: TemplateSchema

    /// Transforms the renderer applies, as `{{uppercased(name)}}`.
    static let transforms: Set<String> = [
        "capitalized", "lowercased", "uppercased", "reversed", "first", "last", "count", "empty", "sorted",
        "enumerated", "equalzero", "plusone", "minusone", "even", "odd",
    ]

    private struct OpenSection {
        let name: String
        let line: Int
        let fields: [String: TemplateSchema.Field]
    }

    /// Checks `text`, whose first character is at `line`, `column` of the file.
    func check(_ text: String, line firstLine: Int, column firstColumn: Int) throws(TemplateError) {
        var open: [OpenSection] = []
        var line = firstLine
        var column = firstColumn
        var index = text.startIndex

        func advance(to end: String.Index) {
            for character in text[index..<end] {
                if character == "\n" { line += 1; column = 1 } else { column += 1 }
            }
            index = end
        }

        while let tagStart = text[index...].range(of: "{{") {
            advance(to: tagStart.lowerBound)
            let tagLine = line, tagColumn = column
            let triple = text[tagStart.upperBound...].hasPrefix("{")
            let closer = triple ? "}}}" : "}}"
            let contentStart = triple ? text.index(after: tagStart.upperBound) : tagStart.upperBound
            guard let tagEnd = text[contentStart...].range(of: closer) else {
                throw TemplateError(file: file, line: tagLine, column: tagColumn,
                                    message: "this tag is never closed with \(closer)")
            }
            let content = text[contentStart..<tagEnd.lowerBound].trimmingWhitespace()
            func fail(_ message: String) -> TemplateError {
                TemplateError(file: file, line: tagLine, column: tagColumn, message: message)
            }
            let sigil = content.first
            let name = sigil.map { "!#^/&>=%$<".contains($0) } == true
                ? content.dropFirst().trimmingWhitespace() : content
            switch triple ? "&" : sigil {
            case "!":
                break
            case ">", "$", "<":
                throw fail("partials and blocks are not supported: write the text into this template")
            case "=":
                throw fail("changing the {{ }} delimiters is not supported")
            case "%":
                throw fail("pragmas are not supported")
            case "#", "^":
                let field = try resolve(name, in: open, fail: fail)
                let fields: [String: TemplateSchema.Field]
                if case .section(let inner) = field { fields = inner } else { fields = [:] }
                open.append(OpenSection(name: name, line: tagLine, fields: fields))
            case "/":
                guard let innermost = open.popLast() else {
                    throw fail("{{/\(name)}} closes a section that was never opened")
                }
                guard innermost.name == name else {
                    throw fail("{{/\(name)}} closes {{#\(innermost.name)}}, opened on line \(innermost.line)")
                }
            default:
                _ = try resolve(name, in: open, fail: fail)
            }
            advance(to: tagEnd.upperBound)
        }
        if let unclosed = open.last {
            throw TemplateError(file: file, line: unclosed.line,
                                message: "{{#\(unclosed.name)}} is never closed with {{/\(unclosed.name)}}")
        }
    }

    /// The field `name` refers to from inside the `open` sections: its first part is looked up from
    /// the innermost section outwards, as the renderer does, and any further parts inside it.
    private func resolve(_ name: String, in open: [OpenSection],
                         fail: (String) -> TemplateError) throws(TemplateError) -> TemplateSchema.Field {
        if name.isEmpty { throw fail("an empty tag: write a field name between {{ and }}") }
        if let parenthesis = name.firstIndex(of: "("), name.hasSuffix(")") {
            let transform = String(name[..<parenthesis])
            guard Self.transforms.contains(transform) else {
                throw fail("unknown transform \(transform)(); known: \(Self.transforms.sorted().joined(separator: ", "))")
            }
            return try resolve(String(name[name.index(after: parenthesis)..<name.index(before: name.endIndex)]),
                               in: open, fail: fail)
        }
        if name == "." {
            guard !open.isEmpty else { throw fail("{{.}} means the current item, so it belongs inside a section") }
            return .value
        }
        let scopes = [schema.fields] + open.map(\.fields)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard var field = scopes.reversed().lazy.compactMap({ $0[parts[0]] }).first else {
            let known = Set(scopes.flatMap(\.keys)).sorted().joined(separator: ", ")
            throw fail("unknown field \"\(parts[0])\"; the fields here are: \(known)")
        }
        for part in parts.dropFirst() {
            guard case .section(let inner) = field, let next = inner[part] else {
                throw fail("unknown field \"\(name)\": \"\(part)\" is not a field of it")
            }
            field = next
        }
        return field
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
