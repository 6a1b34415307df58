/// Why a message could not be sent, or a mail setting could not be understood.
///
/// `message` never contains the SMTP password. `isPermanent` tells a retry loop whether trying
/// again can help: it is true when the server answered with a 5xx code.
public struct MailError: Error, Sendable, CustomStringConvertible {
    /// The broad reason.
    public enum Kind: Sendable, Hashable {
        /// The server could not be reached or talked to: connection refused, DNS, timeout, TLS,
        /// or the server said it is not available now (421).
        case unavailable
        /// The server refused the sender, a recipient, the credentials or the message.
        case rejected
        /// Anything else: a bad setting, a bad address, an unexpected libcurl failure.
        case other
    }

    /// The broad reason.
    public var kind: Kind
    /// What went wrong, for people (never contains the password).
    public var message: String
    /// libcurl's result code (`CURLE_…`), or 0 when libcurl was not involved.
    public var curlCode: Int32
    /// The last SMTP reply code from the server, or 0 when there was none.
    public var responseCode: Int
    /// Whether retrying cannot help (the server answered 5xx).
    public var isPermanent: Bool

    /// Creates an error; `isPermanent` defaults to "the response code is 5xx".
    public init(kind: Kind, message: String, curlCode: Int32 = 0, responseCode: Int = 0, isPermanent: Bool? = nil) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
        self.responseCode = responseCode
        self.isPermanent = isPermanent ?? (500...599).contains(responseCode)
    }

    public var description: String {
        var details: [String] = []
        if responseCode != 0 { details.append("SMTP \(responseCode)") }
        if curlCode != 0 { details.append("curl \(curlCode)") }
        return details.isEmpty ? message : "\(message) (\(details.joined(separator: ", ")))"
    }
}
