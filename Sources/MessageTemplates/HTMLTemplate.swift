import Mustache

/// A Mustache template of an HTML page: every `{{value}}` is HTML-escaped (`<`, `>`, `&`, quotes),
/// so text from a file or the database can never become markup or a script.
public struct HTMLTemplate: Sendable {
    private let template: MustacheTemplate

    /// Parses `source`; `name` names it in the error.
    public init(_ source: String, name: String) throws(TemplateError) {
        do {
            template = try MustacheTemplate(string: source)
        } catch let error as MustacheTemplate.ParserError {
            throw TemplateError(file: name, line: error.context.lineNumber, message: "\(error.error)")
        } catch {
            throw TemplateError(file: name, message: "\(error)")
        }
    }

    /// The page for `values`: lists as `[[String: Any]]`, flags as `Bool`, absent values left out.
    public func render(_ values: [String: Any]) -> String {
        template.render(values)
    }
}
