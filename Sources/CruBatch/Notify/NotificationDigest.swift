import MessageTemplates

/// One message listing a recipient's due messages of several kinds (`notify --digest-over`). A
/// leader's community-group news and a rider's ride news are separate digests, each with its own
/// template: the two are read by different people for different jobs. A digest has no Reply-To,
/// since it is about several people; it lists their contacts instead.
enum NotificationDigest: String, CaseIterable, Sendable {
    /// A leader's joins and leaves (`digest.mustache`).
    case groups = "digest"
    /// A driver's or a passenger's ride messages (`rides-digest.mustache`).
    case rides = "rides-digest"
    /// A ministry's newcomers (`newcomers-digest.mustache`): one message per ministry per run, however few.
    case newcomers = "newcomers-digest"

    /// Whether every message of its kinds goes in it, whatever `--digest` or `--no-digest` say.
    var always: Bool { self == .newcomers }

    /// The template's name.
    var name: String { rawValue }

    /// The compiled-in template.
    var template: String {
        switch self {
        case .groups: DefaultTemplates.digest
        case .rides: DefaultTemplates.ridesDigest
        case .newcomers: DefaultTemplates.newcomersDigest
        }
    }

    /// The kinds that may join it.
    var kinds: [NotificationKind] { NotificationKind.all.filter { $0.digest == self } }

    /// The field that greets the recipient, as the single messages of its kinds name it.
    private var greeting: String {
        switch self {
        case .groups: "leader_first_name"
        case .rides: "recipient_first_name"
        case .newcomers: "ministry_name"
        }
    }

    /// The recipient's first name, how many messages there are and whether more than one
    /// (`plural`), and per kind its list of items
    /// (`joined`), their count (`joined_count`, absent for none) and whether it is more than one
    /// (`joined_plural`).
    var fields: [String: TemplateSchema.Field] {
        var fields: [String: TemplateSchema.Field] = [greeting: .value, "count": .value, "plural": .section([:])]
        for kind in kinds {
            fields[kind.fieldName] = .section(kind.fields)
            fields[kind.fieldName + "_count"] = .value
            fields[kind.fieldName + "_plural"] = .section([:])
        }
        return fields
    }

    /// The template's context for `notices` (one recipient's).
    func context(_ notices: [Notice]) -> [String: Any] {
        var context: [String: Any] = ["count": String(notices.count), "plural": notices.count > 1]
        context[greeting] = notices.first?.fields[greeting]
        for kind in kinds {
            let items = notices.filter { $0.kind == kind }.map(\.fields)
            guard !items.isEmpty else { continue }
            context[kind.fieldName] = items
            context[kind.fieldName + "_count"] = String(items.count)
            context[kind.fieldName + "_plural"] = items.count > 1
        }
        return context
    }
}
