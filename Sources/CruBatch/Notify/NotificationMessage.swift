import Foundation
import Mailer

/// One join to tell a leader about: the student's contact details and the group. Only this
/// student's data, never another's.
struct MemberJoined {
    let notificationID: Int
    let leaderFirstName: String
    let leaderEmail: String
    let studentName: String
    let studentEmail: String
    let studentPhone: String?
    let schoolYear: Int?
    let groupName: String
    let groupDay: String?
    let groupTime: String?
    let groupLocation: String?

    var meeting: String {
        [groupDay.map { "\($0)s" }, groupTime.map { "at \($0)" }, groupLocation.map { "(\($0))" }]
            .compactMap { $0 }.joined(separator: " ")
    }

    var details: String {
        var lines = ["\(studentName) joined \(groupName)\(meeting.isEmpty ? "" : ", which meets \(meeting)").",
                     "  Email:       \(studentEmail)"]
        lines.append("  Phone:       \(studentPhone ?? "not given")")
        if let schoolYear { lines.append("  School year: \(Self.yearNames[schoolYear] ?? String(schoolYear))") }
        return lines.joined(separator: "\n")
    }

    static let yearNames = [1: "freshman", 2: "sophomore", 3: "junior", 4: "senior", 5: "fifth year / graduate"]
}

/// Renders the plain-text emails leaders receive, one per join or one digest per leader.
enum NotificationMessage {
    static let signature = "\n\nPlease reach out and welcome them before your next meeting.\n\n— Cru community groups (sent by crubatch)\n"

    /// Message-IDs are `notification-ID.DATABASE@crubatch`: stable for a notification (a re-send after a
    /// crash carries the same one, so mail clients drop the duplicate) and unique across databases.
    static func single(_ join: MemberJoined, from: EmailAddress, date: Date, database: String) -> EmailMessage {
        EmailMessage(from: from, to: [EmailAddress(join.leaderEmail, name: nil)],
                     subject: "\(join.studentName) joined \(join.groupName)",
                     body: "Hi \(join.leaderFirstName),\n\n" + join.details + signature,
                     messageID: "notification-\(join.notificationID).\(database)@crubatch", date: date)
    }

    static func digest(_ joins: [MemberJoined], from: EmailAddress, date: Date, database: String) -> EmailMessage {
        let first = joins[0]
        let ids = joins.map(\.notificationID)
        return EmailMessage(from: from, to: [EmailAddress(first.leaderEmail, name: nil)],
                            subject: "\(joins.count) new member\(joins.count == 1 ? "" : "s") in your community groups",
                            body: "Hi \(first.leaderFirstName),\n\n" + joins.map(\.details).joined(separator: "\n\n") + signature,
                            messageID: "digest-\(ids.min()!)-\(ids.max()!)-\(ids.count).\(database)@crubatch", date: date)
    }
}
