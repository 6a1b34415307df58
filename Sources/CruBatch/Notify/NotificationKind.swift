import PostgresClient

/// One kind of message the outbox sends (docs/ARCHITECTURE.md, "The outbox"). Adding a kind is
/// one declaration here (listed in `all`), its row in `notification_kinds` and what queues it (a
/// trigger or an insert) in a migration, and its default template.
struct NotificationKind: Sendable, Hashable {
    /// Its name in `notification_kinds`, the name of its template, and what `--preview` takes.
    let name: String
    /// What its notifications are about, which says how their facts are read.
    let subject: NotificationSubject
    /// Who replies reach: the person the message is about for a leader's, the first leader for a student's.
    let replyTo: ReplyTarget
    /// Whether a recipient's messages of this kind may go as one digest.
    let digestible: Bool

    /// A student joined a group: to each of its leaders.
    static let joined = NotificationKind(name: "joined", subject: .membership, replyTo: .student, digestible: true)
    /// A student was put in a group: to the student, with when and where it meets and its leaders' contacts.
    static let welcome = NotificationKind(name: "welcome", subject: .membership, replyTo: .firstLeader, digestible: false)
    /// A student left a group: to each of its leaders.
    static let left = NotificationKind(name: "left", subject: .membership, replyTo: .student, digestible: true)

    static let all: [NotificationKind] = [joined, welcome, left]

    static func named(_ name: String) -> NotificationKind? {
        all.first { $0.name == name }
    }

    /// The names of every kind, as `--preview` lists them.
    static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The notifications, as `n`, that this crubatch can send: of a kind it knows, whose subject still exists.
    static var sendable: PostgresQuery {
        let conditions = NotificationSubject.allCases.map { subject -> String in
            let kinds = all.filter { $0.subject == subject }.map { "'\($0.name)'" }.joined(separator: ", ")
            return "(n.kind in (\(kinds)) and n.\(subject.column) is not null)"
        }
        return PostgresQuery(unsafeSQL: "(" + conditions.joined(separator: " or ") + ")")
    }
}

/// Whose address a message's Reply-To header gives.
enum ReplyTarget: Sendable {
    case student
    case firstLeader
}
