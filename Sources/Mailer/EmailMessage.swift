import Foundation

/// A plain-text email, ready to be rendered as an RFC 5322 message and sent.
public struct EmailMessage: Sendable {
    /// The sender (the From header and the SMTP envelope sender).
    public var from: EmailAddress
    /// The recipients (the To header and the SMTP envelope recipients).
    public var to: [EmailAddress]
    /// Where replies go (the Reply-To header), when not to the sender.
    public var replyTo: [EmailAddress]
    /// The subject, any Unicode text (encoded as RFC 2047 words when it is not ASCII).
    public var subject: String
    /// The body, plain text; any line breaks (LF, CRLF or CR) are sent as CRLF.
    public var body: String
    /// The Message-ID without angle brackets, e.g. `notification-42@crubatch`. Keep it stable for a
    /// given logical message so a retried send is recognisable as the same message.
    public var messageID: String
    /// The Date header.
    public var date: Date
    /// More headers, as (name, value), rendered after the standard ones. A header that the message
    /// writes itself (Date, From, To, Reply-To, Subject, Message-ID, MIME-Version, Content-*) is
    /// ignored here.
    public var extraHeaders: [(String, String)]

    /// A message; `date` defaults to now.
    public init(from: EmailAddress, to: [EmailAddress], replyTo: [EmailAddress] = [], subject: String, body: String,
                messageID: String, date: Date = Date(), extraHeaders: [(String, String)] = []) {
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.body = body
        self.messageID = messageID
        self.date = date
        self.extraHeaders = extraHeaders
    }

    /// The headers written by `rendered()` itself, lowercased.
    static let standardHeaders: Set<String> = [
        "date", "from", "to", "reply-to", "subject", "message-id", "mime-version",
        "content-type", "content-transfer-encoding",
    ]

    /// The message ID as it goes in the header, without brackets, spaces or control characters.
    var cleanMessageID: String {
        String(String.UnicodeScalarView(messageID.unicodeScalars.filter { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && scalar != "<" && scalar != ">"
        }))
    }

    /// The header section: one folded header per element, without line ends at the end.
    public var renderedHeaders: [String] {
        var headers = [
            "Date: " + MailEncoding.rfc5322Date(date),
            MailEncoding.fold("From", tokens: [from.rendered], separator: ", "),
            MailEncoding.fold("To", tokens: to.map(\.rendered), separator: ", "),
        ] + (replyTo.isEmpty ? [] : [MailEncoding.fold("Reply-To", tokens: replyTo.map(\.rendered), separator: ", ")]) + [
            MailEncoding.unstructuredHeader("Subject", subject),
            "Message-ID: <\(cleanMessageID)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        for (name, value) in extraHeaders {
            let name = String(String.UnicodeScalarView(name.unicodeScalars.filter { scalar in
                scalar.value > 0x20 && scalar.value < 0x7F && scalar != ":"
            }))
            guard !name.isEmpty, !Self.standardHeaders.contains(name.lowercased()) else { continue }
            headers.append(MailEncoding.unstructuredHeader(name, value))
        }
        return headers
    }

    /// The message as people read it in a mail program: the headers that matter decoded, then the
    /// body as written (no transfer encoding), LF line ends.
    public var readable: String {
        var lines = ["From: \(from)", "To: " + to.map(\.description).joined(separator: ", ")]
        if !replyTo.isEmpty { lines.append("Reply-To: " + replyTo.map(\.description).joined(separator: ", ")) }
        lines += ["Subject: " + MailEncoding.singleLine(subject), "Date: " + MailEncoding.rfc5322Date(date),
                  "Message-ID: <\(cleanMessageID)>", ""]
        let body = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return lines.joined(separator: "\n") + "\n" + body + (body.hasSuffix("\n") ? "" : "\n")
    }

    /// The whole message as RFC 5322 bytes with CRLF line ends: headers (Date, From, To, Reply-To, Subject,
    /// Message-ID, MIME-Version, Content-Type text/plain UTF-8, Content-Transfer-Encoding
    /// quoted-printable, then the extra headers), a blank line and the quoted-printable body. No
    /// line is longer than 998 octets. Dot-stuffing is left to the SMTP client (libcurl does it).
    public func rendered() -> [UInt8] {
        var bytes: [UInt8] = []
        for header in renderedHeaders {
            bytes += Array(header.utf8) + MailEncoding.crlf
        }
        bytes += MailEncoding.crlf
        bytes += MailEncoding.quotedPrintable(body)
        return bytes
    }
}
