import Foundation
import MessageTemplates

/// The wording of every message: each kind's template and the digests', compiled-in defaults
/// replaced by the files of a templates folder, each checked against its schema when loaded.
struct NotificationTemplates: Sendable {
    /// The digests' template name (`digest.mustache`).
    static let digest = "digest"

    private let templates: MessageTemplates

    /// Loads the defaults and `directory`'s files over them; a syntax error, an unknown field or an
    /// unknown file name is a `TemplateError` with the file and line.
    init(directory: URL?) throws(TemplateError) {
        var defaults = [Self.digest: DefaultTemplates.digest]
        var schemas = [Self.digest: TemplateSchema(Self.digestFields)]
        for kind in NotificationKind.all {
            defaults[kind.name] = kind.template
            schemas[kind.name] = TemplateSchema(kind.fields)
        }
        templates = try MessageTemplates(defaults: defaults, schemas: schemas, directory: directory)
    }

    /// A leader's first name, how many messages there are, and per digestible kind its list of
    /// items (`joined`), their count (`joined_count`, absent for none) and whether it is more than one
    /// (`joined_plural`).
    static var digestFields: [String: TemplateSchema.Field] {
        var fields: [String: TemplateSchema.Field] = ["leader_first_name": .value, "count": .value]
        for kind in NotificationKind.all where kind.digestible {
            fields[kind.name] = .section(kind.fields)
            fields[kind.name + "_count"] = .value
            fields[kind.name + "_plural"] = .section([:])
        }
        return fields
    }

    /// The digest's context for `notices` (one recipient's).
    static func digestContext(_ notices: [Notice]) -> [String: Any] {
        var context: [String: Any] = ["count": String(notices.count)]
        context["leader_first_name"] = notices.first?.fields["leader_first_name"]
        for kind in NotificationKind.all where kind.digestible {
            let items = notices.filter { $0.kind == kind }.map(\.fields)
            guard !items.isEmpty else { continue }
            context[kind.name] = items
            context[kind.name + "_count"] = String(items.count)
            context[kind.name + "_plural"] = items.count > 1
        }
        return context
    }

    func render(_ name: String, _ context: [String: Any]) -> RenderedMessage {
        templates.render(name, context)
    }
}

/// A template that cannot be used stops `notify` before anything is claimed: exit 78, like the
/// other settings of the mail (a templates folder is configuration, not data).
extension TemplateError: CommandFailure {
    public var exitStatus: ExitStatus { .configuration }
    public var errorCode: String { "invalid-template" }
    public var commandMessage: String { "template \(description); nothing was sent" }
}
