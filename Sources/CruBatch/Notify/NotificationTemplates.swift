import Foundation
import MessageTemplates

/// The wording of every message: each kind's template and each digest's, compiled-in defaults
/// replaced by the files of a templates folder, each checked against its schema when loaded.
struct NotificationTemplates: Sendable {
    private let templates: MessageTemplates

    /// Loads the defaults and `directory`'s files over them; a syntax error, an unknown field or an
    /// unknown file name is a `TemplateError` with the file and line.
    init(directory: URL?) throws(TemplateError) {
        var defaults: [String: String] = [:]
        var schemas: [String: TemplateSchema] = [:]
        for digest in NotificationDigest.allCases {
            defaults[digest.name] = digest.template
            schemas[digest.name] = TemplateSchema(digest.fields)
        }
        for kind in NotificationKind.all {
            defaults[kind.name] = kind.template
            schemas[kind.name] = TemplateSchema(kind.fields)
        }
        templates = try MessageTemplates(defaults: defaults, schemas: schemas, directory: directory)
    }

    func render(_ name: String, _ context: [String: Any]) -> RenderedMessage {
        templates.render(name, context)
    }
}
