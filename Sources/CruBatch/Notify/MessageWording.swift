/// The words of every message: a subject and a plain-text body from a kind's fields.
struct MessageWording {
    static let signature = "— Cru community groups (sent by crubatch)\n"

    func render(_ name: String, _ context: [String: Any]) -> (subject: String, body: String) {
        let field = { (key: String) in context[key] as? String }
        let hi = "Hi \(field("first_name") ?? ""),\n\n"
        switch name {
        case "joined":
            return ("\(field("student_name")!) joined \(field("group_name")!)",
                    hi + Self.joinDetails(context) + "\n\nReply to this message to write to \(field("student_first_name")!)."
                        + " Please reach out and welcome them before your next meeting.\n\n" + Self.signature)
        case "left":
            return ("\(field("student_name")!) left \(field("group_name")!)",
                    hi + Self.leaveDetails(context) + "\n\n" + Self.signature)
        case "welcome":
            let leaders = (context["leaders"] as? [[String: Any]] ?? []).map { leader in
                (["  \(leader["name"] as! String)", "    Email: \(leader["email"] as! String)"]
                    + ((leader["phone"] as? String).map { ["    Phone: \($0)"] } ?? [])).joined(separator: "\n")
            }
            return ("Welcome to \(field("group_name")!)",
                    hi + "You are in \(field("group_name")!)" + (field("meeting").map { ", which meets \($0)" } ?? "") + ".\n\n"
                        + "Your leaders:\n" + leaders.joined(separator: "\n") + "\n\nReply to this message to write to your leaders.\n\n"
                        + Self.signature)
        default:
            let joins = context["joined"] as? [[String: Any]] ?? [], leaves = context["left"] as? [[String: Any]] ?? []
            let counts = [joins.isEmpty ? nil : "\(joins.count) new member\(joins.count == 1 ? "" : "s")",
                          leaves.isEmpty ? nil : "\(leaves.count) member\(leaves.count == 1 ? "" : "s") left"]
            let body = (joins.map(Self.joinDetails) + leaves.map(Self.leaveDetails)).joined(separator: "\n\n")
            return (counts.compactMap { $0 }.joined(separator: " and ") + " in your community groups",
                    hi + body + "\n\n" + Self.signature)
        }
    }

    private static func joinDetails(_ context: [String: Any]) -> String {
        let field = { (key: String) in context[key] as? String }
        return ["\(field("student_name")!) joined \(field("group_name")!)" + (field("meeting").map { ", which meets \($0)" } ?? "") + ".",
                "  Email:       \(field("student_email")!)", "  Phone:       \(field("student_phone") ?? "not given")"]
            .joined(separator: "\n") + (field("school_year").map { "\n  School year: \($0)" } ?? "")
    }

    private static func leaveDetails(_ context: [String: Any]) -> String {
        "\(context["student_name"] as! String) (\(context["student_email"] as! String)) left \(context["group_name"] as! String)."
    }
}
