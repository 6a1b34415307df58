/// What a template may name: each field is a value, or a section (a list, an optional object or a
/// flag) with fields of its own. A template naming anything else is refused when it is loaded.
public struct TemplateSchema: Sendable {
    /// One field a template may use.
    public indirect enum Field: Sendable {
        /// A value printed by `{{name}}`; as a section, shown when it is present and not empty.
        case value
        /// A list, an optional object or a flag: `{{#name}} ... {{/name}}` shows its contents once per
        /// item (or once when present or true), and inside it these fields may be named too.
        case section([String: Field])
    }

    let fields: [String: Field]

    public init(_ fields: [String: Field]) {
        self.fields = fields
    }
}

/// A template that cannot be used, with where it went wrong.
public struct TemplateError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The template file, or `built-in NAME` for a compiled-in default.
    public let file: String
    /// The line in the file (from 1), when the fault is on one.
    public let line: Int?
    /// The column on that line (from 1), when known.
    public let column: Int?
    public let message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        [file, line.map(String.init), column.map(String.init)].compactMap { $0 }.joined(separator: ":") + ": " + message
    }
}
