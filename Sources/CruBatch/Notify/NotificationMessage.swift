import Foundation
import Mailer

/// Turns notices into email messages: one message per notice, or one digest per recipient.
enum NotificationMessage {
    /// Message-IDs are `notification-ID.DATABASE@crubatch`: stable for a notification (a re-send after a
    /// crash carries the same one, so mail clients drop the duplicate) and unique across databases.
    static func single(_ notice: Notice, templates: NotificationTemplates, from: EmailAddress, date: Date,
                       database: String) -> EmailMessage {
        let text = templates.render(notice.kind.name, notice.fields)
        return EmailMessage(from: from, to: [notice.recipient], replyTo: notice.replyTo.map { [$0] } ?? [],
                            subject: text.subject, body: text.body,
                            messageID: "notification-\(notice.id).\(database)@crubatch", date: date)
    }

    /// One message listing all of `notices` (one recipient's), each kind in its own section. It
    /// has no Reply-To: it is about several people.
    static func digest(_ notices: [Notice], as digest: NotificationDigest, templates: NotificationTemplates,
                       from: EmailAddress, date: Date, database: String) -> EmailMessage {
        let ids = notices.map(\.id)
        let text = templates.render(digest.name, digest.context(notices))
        return EmailMessage(from: from, to: [notices[0].recipient], subject: text.subject, body: text.body,
                            messageID: "digest-\(ids.min()!)-\(ids.max()!)-\(ids.count).\(database)@crubatch", date: date)
    }
}
