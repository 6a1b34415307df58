import CLibCurl

/// One line of a server reply, with the step of the session it answered.
struct SMTPReply {
    /// The reply code, e.g. 550.
    let code: Int
    /// The whole line (at most 300 characters), for error messages.
    let text: String
    /// The step the reply answered.
    let step: SMTPStep

    /// Reads a line such as `550 5.1.1 <a@b>: no such user` (or a continuation line, `550-…`);
    /// nil for anything that does not start with a reply code.
    init?(_ line: Substring, step: SMTPStep) {
        guard line.count >= 3, let code = Int(line.prefix(3)), (200...599).contains(code) else { return nil }
        self.code = code
        text = String(line.prefix(300))
        self.step = step
    }

    /// The enhanced status code's subject and detail (`5.4.5` gives 4 and 5), when the reply has one.
    var enhancedStatus: (subject: Int, detail: Int)? {
        let words = text.dropFirst(4).split(separator: " ", maxSplits: 1)
        let parts = words.first?.split(separator: ".") ?? []
        guard parts.count == 3, let first = Int(parts[0]), first == code / 100,
              let subject = Int(parts[1]), let detail = Int(parts[2]) else { return nil }
        return (subject, detail)
    }
}

/// The SMTP conversation of one send as libcurl's debug callback shows it: the step the session
/// is at (from the commands libcurl sends) and the last error reply the server gave. libcurl
/// itself only reports "RCPT failed: 550"; this knows which command failed and what the server said.
final class SMTPDialogue {
    /// The step of the last command sent, or nil before the first (while connecting or waiting for
    /// the greeting).
    private(set) var step: SMTPStep?
    /// The last 4xx or 5xx reply line; later replies (such as "221 Bye" after libcurl gives up)
    /// do not replace it.
    private(set) var lastErrorReply: SMTPReply?

    /// Forgets the previous send.
    func begin() {
        step = nil
        lastErrorReply = nil
    }

    /// Takes note of a command libcurl sent. Only the verb is looked at, so the AUTH exchanges
    /// (which carry the password) are never kept.
    func sent(_ data: UnsafeRawBufferPointer) {
        let line = String(decoding: data.prefix(12), as: UTF8.self).uppercased()
        let verbs: [(String, SMTPStep)] = [
            ("EHLO ", .hello), ("HELO ", .hello), ("STARTTLS", .startTLS), ("AUTH ", .authentication),
            ("MAIL FROM:", .sender), ("RCPT TO:", .recipient), ("DATA", .data),
        ]
        if let match = verbs.first(where: { line.hasPrefix($0.0) }) { step = match.1 }
    }

    /// Takes note of reply lines from the server.
    func received(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            guard let reply = SMTPReply(line.drop { $0 == " " }, step: step ?? .greeting) else { continue }
            if reply.code >= 400 {
                lastErrorReply = reply
            } else if reply.code == 354 && step == .data {
                step = .content // libcurl sends the message next
            }
        }
    }
}

/// What a failed send is about, judged from libcurl's result, the server's reply and the step.
struct SMTPFailureJudgement {
    let scope: MailError.Scope
    let isPermanent: Bool

    /// Judges a failure: `reply` is the server's last error reply (if any) and `step` the step
    /// the session was at.
    init(curlCode: CURLcode, reply: SMTPReply?, step: SMTPStep) {
        let code = reply?.code ?? 0
        if code == 421 {
            self.init(.session) // the server is closing the connection
        } else if code == 530 || (reply?.step == .authentication && code >= 500)
                    || (curlCode == CURLE_LOGIN_DENIED && code < 400) {
            self.init(.credentials)
        } else if let reply, reply.step >= .recipient, reply.step == step {
            self.init(judgingMessageReply: reply)
        } else if Self.configurationCodes.contains(curlCode) {
            self.init(.configuration)
        } else {
            self.init(.session)
        }
    }

    /// A refusal of a recipient or of the message: about the message, unless its enhanced status
    /// says the server itself is full, congested or over a sending limit (X.3.x but "message too
    /// big", X.4.x), or the code is not one a server refuses a message with.
    private init(judgingMessageReply reply: SMTPReply) {
        if let status = reply.enhancedStatus, status.subject == 4 || (status.subject == 3 && status.detail != 4) {
            self.init(.session)
        } else if (550...554).contains(reply.code) {
            self.init(.message, isPermanent: true)
        } else if (400...499).contains(reply.code) {
            self.init(.message)
        } else {
            self.init(.session)
        }
    }

    private init(_ scope: MailError.Scope, isPermanent: Bool = false) {
        self.scope = scope
        self.isPermanent = isPermanent
    }

    /// libcurl results that mean a local setting is wrong, not the server.
    private static let configurationCodes: Set<CURLcode> = [
        CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_SSL_CERTPROBLEM,
        CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_BAD_FUNCTION_ARGUMENT,
    ]
}
