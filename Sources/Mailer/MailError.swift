/// Why a message could not be sent, or a mail setting could not be understood.
///
/// `scope` says what the failure is about, which is what a sender acts on: a `.message` failure
/// concerns that message alone (send the next one), any other scope concerns every message (stop
/// and try the whole batch later, or fix the settings). `message` never contains the SMTP password.
public struct MailError: Error, Sendable, CustomStringConvertible {
    /// What a failure is about.
    public enum Scope: Sendable, Hashable {
        /// This message only: the server refused one of its recipients or its content (a 4xx or
        /// 550–554 reply to RCPT TO, DATA or the end of the data), or the message is invalid.
        /// Other messages can still be sent; `isPermanent` says whether this one ever can.
        case message
        /// The session: the server could not be reached or used (connection refused or dropped,
        /// timeout, TLS, 421, a refused EHLO or sender, the server full or over its sending
        /// limit). No message can be sent now; try again later.
        case session
        /// The server refused to log in, or demands a login that was not given (530, 535, any
        /// 5xx to AUTH). Nothing can be sent until the SMTP user or password is changed.
        case credentials
        /// A setting or an address handed to the mailer cannot be used (a bad URL, an option
        /// libcurl refuses).
        case configuration
    }

    /// What the failure is about.
    public var scope: Scope
    /// What went wrong, for people (never contains the password).
    public var message: String
    /// libcurl's result code (`CURLE_…`), or 0 when libcurl was not involved.
    public var curlCode: Int32
    /// The SMTP reply code the failure is judged by (the server's last error reply, else its
    /// last reply), or 0 when there was none.
    public var responseCode: Int
    /// The step of the SMTP session that failed, or nil when no server was involved.
    public var step: SMTPStep?
    /// Whether sending this message can never succeed: a `.message` failure with a 5xx reply, or
    /// an invalid message. Always false for the other scopes, which say nothing about the message.
    public var isPermanent: Bool

    /// Creates an error.
    public init(scope: Scope, message: String, curlCode: Int32 = 0, responseCode: Int = 0,
                step: SMTPStep? = nil, isPermanent: Bool = false) {
        self.scope = scope
        self.message = message
        self.curlCode = curlCode
        self.responseCode = responseCode
        self.step = step
        self.isPermanent = scope == .message && isPermanent
    }

    public var description: String {
        var details: [String] = []
        if responseCode != 0 { details.append("SMTP \(responseCode)") }
        if curlCode != 0 { details.append("curl \(curlCode)") }
        return details.isEmpty ? message : "\(message) (\(details.joined(separator: ", ")))"
    }
}

/// The steps of sending one message over SMTP, in the order they happen.
public enum SMTPStep: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Reaching the server: name lookup and TCP connection.
    case connect
    /// Waiting for the server's 220 greeting (after the TLS handshake, for smtps://).
    case greeting
    /// EHLO (or HELO).
    case hello
    /// STARTTLS and the TLS handshake after it.
    case startTLS
    /// AUTH and the exchanges that follow it.
    case authentication
    /// MAIL FROM: the envelope sender.
    case sender
    /// RCPT TO: a recipient.
    case recipient
    /// The DATA command.
    case data
    /// The message itself, up to the server's reply after its last line.
    case content

    public static func < (lhs: SMTPStep, rhs: SMTPStep) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        switch self {
        case .connect: "connecting"
        case .greeting: "waiting for the greeting"
        case .hello: "EHLO"
        case .startTLS: "STARTTLS"
        case .authentication: "AUTH"
        case .sender: "MAIL FROM"
        case .recipient: "RCPT TO"
        case .data: "DATA"
        case .content: "after the message data"
        }
    }
}
