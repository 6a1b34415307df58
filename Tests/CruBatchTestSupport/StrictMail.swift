import Foundation

/// One message as Python's `email` package reads it under the strict policy.
public struct StrictMail {
    public let notificationID: Int?
    public let to: [String]
    public let replyTo: [String]
    public let subject: String
    public let body: String

    /// Parses every message with `email.message_from_bytes(..., policy=email.policy.strict)`, which
    /// raises on a defect of the message's structure, refuses any defect found in a header (the
    /// header registry records those without raising), and reads the addresses through it.
    public static func parse(_ raw: [String]) throws -> [StrictMail] {
        let output = try Python.run(script: """
            import email, email.policy, json, sys
            out = []
            for raw in json.load(sys.stdin):
                msg = email.message_from_bytes(raw.encode("utf-8"), policy=email.policy.strict)
                defects = list(msg.defects) + [d for _, value in msg.items() for d in value.defects]
                if defects:
                    sys.exit(f"defects in {msg['Message-ID']}: {defects}")
                reply = msg["Reply-To"]
                out.append({"id": str(msg["Message-ID"]), "to": [a.addr_spec for a in msg["To"].addresses],
                            "reply_to": [a.addr_spec for a in reply.addresses] if reply else [],
                            "subject": str(msg["Subject"]), "body": msg.get_content()})
            print(json.dumps(out))
            """, input: try JSONSerialization.data(withJSONObject: raw))
        let items = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        return items.map { item in
            let id = item["id"] as? String ?? ""
            let number = id.hasPrefix("<notification-") ? Int(id.dropFirst(14).prefix { $0.isNumber }) : nil
            return StrictMail(notificationID: number, to: item["to"] as? [String] ?? [],
                              replyTo: item["reply_to"] as? [String] ?? [], subject: item["subject"] as? String ?? "",
                              body: item["body"] as? String ?? "")
        }
    }
}
