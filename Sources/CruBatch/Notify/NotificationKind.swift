import MessageTemplates
import PostgresClient

/// One kind of message the outbox sends (docs/ARCHITECTURE.md, "The outbox"). Adding a kind is
/// one declaration here (listed in `all`) with its default template, and in a migration its row in
/// `notification_kinds` and what queues it (a trigger or an insert).
struct NotificationKind: Sendable {
    /// Its name in `notification_kinds`, its template's name, and what `--preview` takes.
    let name: String
    /// What its notifications are about, which says how their facts are read.
    let subject: NotificationSubject
    /// Who receives it, which says whom replies reach: a leader's message replies to the student,
    /// a student's to their first leader, a driver's or passenger's to the other one.
    let recipient: NotificationRecipient
    /// The digest a recipient's messages of this kind may join (nil: always sent one by one).
    let digest: NotificationDigest?
    /// The compiled-in template (`DefaultTemplates`).
    let template: String

    /// A student joined a group: to each of its leaders.
    static let joined = NotificationKind(name: "joined", subject: .membership, recipient: .leader, digest: .groups,
                                         template: DefaultTemplates.joined)
    /// A student was put in a group: to the student, with when and where it meets and its leaders' contacts.
    static let welcome = NotificationKind(name: "welcome", subject: .membership, recipient: .student, digest: nil,
                                          template: DefaultTemplates.welcome)
    /// A student left a group: to each of its leaders.
    static let left = NotificationKind(name: "left", subject: .membership, recipient: .leader, digest: .groups,
                                       template: DefaultTemplates.left)
    /// A passenger has a seat in a car for one leg: to the driver and to the passenger, each with the
    /// other's contacts.
    static let ridePaired = NotificationKind(name: "ride-paired", subject: .ridePairing, recipient: .rider,
                                             digest: .rides, template: DefaultTemplates.ridePaired)
    /// The last seat of a car's leg was taken: to the driver.
    static let rideFull = NotificationKind(name: "ride-full", subject: .ridePairing, recipient: .driver, digest: .rides,
                                           template: DefaultTemplates.rideFull)
    /// The driver no longer takes the passenger on a leg (the offer was cancelled or changed): to the passenger.
    static let rideCancelled = NotificationKind(name: "ride-cancelled", subject: .ridePairing, recipient: .rider,
                                                digest: .rides, template: DefaultTemplates.rideCancelled)
    /// The passenger no longer rides on a leg (the request was cancelled or changed): to the driver.
    static let seatFreed = NotificationKind(name: "seat-freed", subject: .ridePairing, recipient: .rider,
                                            digest: .rides, template: DefaultTemplates.seatFreed)

    /// Someone came to an event of a ministry for the first time and is in none of its groups: to the
    /// ministry's staff contact, always in the ministry's digest of the run.
    static let newcomer = NotificationKind(name: "newcomer", subject: .attendance, recipient: .ministry,
                                           digest: .newcomers, template: DefaultTemplates.newcomer)

    static let all: [NotificationKind] = [joined, welcome, left, ridePaired, rideFull, rideCancelled, seatFreed, newcomer]

    static func named(_ name: String) -> NotificationKind? {
        all.first { $0.name == name }
    }

    /// The names of every kind, as `--preview` lists them.
    static var names: String { all.map(\.name).joined(separator: ", ") }

    /// Its name as a field of a digest's template, spelt like the other fields: `ride_paired`.
    var fieldName: String { name.replacingOccurrences(of: "-", with: "_") }

    /// The fields its template may name: its subject's, and the recipient's first name on a leader's.
    var fields: [String: TemplateSchema.Field] {
        recipient == .leader ? subject.fields.merging(["leader_first_name": .value]) { $1 } : subject.fields
    }

    /// The notifications, as `n`, that this crubatch can send: of a kind it knows, whose subject still exists.
    static let sendable: PostgresQuery = {
        let conditions = NotificationSubject.allCases.map { subject -> SQLFragment in
            let kinds = SQLFragment(joining: all.filter { $0.subject == subject }.map { SQLFragment(literal: $0.name) },
                                    separator: ", ")
            return "(n.kind in (\(kinds)) and n.\(identifier: subject.column) is not null)"
        }
        let any: SQLFragment = "(\(SQLFragment(joining: conditions, separator: " or ")))"
        return PostgresQuery(any)
    }()
}

/// Who receives a kind of message.
enum NotificationRecipient: Sendable {
    /// Each leader of the group; replies reach the student the message is about.
    case leader
    /// The student; replies reach their first leader.
    case student
    /// The driver or the passenger of a pairing, as each notification says; replies reach the other one.
    case rider
    /// The driver, about their car rather than one passenger: no Reply-To.
    case driver
    /// A ministry's staff contact (`ministries.contact_email`), about people who are not yet in touch: no Reply-To.
    case ministry
}

extension NotificationKind: Equatable {
    static func == (a: NotificationKind, b: NotificationKind) -> Bool { a.name == b.name }
}
