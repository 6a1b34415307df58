import CLibCurl
import Credentials
import Foundation

/// libcurl's process-wide setup, done once, on first use, by whichever thread gets there first.
enum CurlGlobal {
    static let initResult: UInt32 = crubatch_curl_global_init_default().rawValue
}

/// Sends mail to an SMTP server with libcurl (smtp:// with STARTTLS, smtps://, AUTH).
///
/// One libcurl easy handle is reused for every send, so consecutive messages share the connection
/// while the server keeps it open. Sends are serialised: the transport may be shared between
/// threads, but only one message is on the wire at a time.
///
/// No call outlives the configured timeout by more than `closingGrace`: a send gives up after the
/// timeout, and letting the transport go says QUIT but waits at most `closingGrace` for the answer.
/// A connection that failed for any reason but the message is dropped, never reused.
public final class SMTPTransport: MailTransport, @unchecked Sendable {
    /// Where and how this transport sends.
    public let configuration: SMTPConfiguration
    /// How long closing the connection may wait for the server's answer to QUIT, in seconds.
    public static let closingGrace = 1.0

    private let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let dialogue = SMTPDialogue()
    private let sockets = SocketDeadline()
    private let lock = NSLock()

    /// A transport for `configuration`. Nothing is sent and no connection is made until `send`.
    public init(configuration: SMTPConfiguration) throws(MailError) {
        guard CurlGlobal.initResult == CURLE_OK.rawValue else {
            throw MailError(scope: .session, message: "libcurl could not be initialised",
                            curlCode: Int32(bitPattern: CurlGlobal.initResult))
        }
        guard let handle = curl_easy_init() else {
            throw MailError(scope: .session, message: "libcurl could not create a handle")
        }
        self.configuration = configuration
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            try configure()
        } catch {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
            throw error
        }
    }

    /// A transport for the `smtp://` or `smtps://` URL (see `SMTPConfiguration`).
    public convenience init(url: String) throws(MailError) {
        try self.init(configuration: SMTPConfiguration(url: url))
    }

    deinit {
        // Says QUIT on a connection still open, and would wait minutes for a server that is silent.
        sockets.run(within: Self.closingGrace) { curl_easy_cleanup(handle) }
        errorBuffer.deallocate()
    }

    /// Sends `message` to all of its recipients, or throws why not; the error's `scope` says whether
    /// the failure concerns this message only (`.message`) or every message (see `MailError`).
    public func send(_ message: EmailMessage) throws(MailError) {
        guard !message.to.isEmpty else {
            throw MailError(scope: .message, message: "the message \(message.cleanMessageID) has no recipients",
                            isPermanent: true)
        }
        for address in [message.from] + message.to where !EmailAddress.isValidAddress(address.address) {
            throw MailError(scope: .message,
                            message: "not an email address: \"\(MailEncoding.singleLine(address.address))\"",
                            isPermanent: true)
        }
        let source = ReadSource(message.rendered())
        lock.lock()
        defer { lock.unlock() }

        var recipients: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipients) }
        for address in message.to {
            guard let appended = curl_slist_append(recipients, "<\(address.address)>") else {
                throw MailError(scope: .session, message: "out of memory building the recipient list")
            }
            recipients = appended
        }
        try check(crubatch_curl_set_string(handle, CURLOPT_MAIL_FROM, "<\(message.from.address)>"), "MAIL_FROM")
        try check(crubatch_curl_set_list(handle, CURLOPT_MAIL_RCPT, recipients), "MAIL_RCPT")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(source).toOpaque()),
                  "READDATA")
        defer {
            _ = crubatch_curl_set_list(handle, CURLOPT_MAIL_RCPT, nil)
            _ = crubatch_curl_set_pointer(handle, CURLOPT_READDATA, nil)
        }
        errorBuffer[0] = 0
        dialogue.begin()

        let result = withExtendedLifetime(source) {
            sockets.run(within: configuration.timeout + Self.closingGrace) { curl_easy_perform(handle) }
        }
        guard result != CURLE_OK else { return }
        let error = failure(result)
        // After a timeout the server may still answer late, out of step with the next command.
        if error.scope != .message { sockets.cutOff() }
        throw error
    }

    // MARK: Setup

    private func configure() throws(MailError) {
        let config = configuration
        try check(crubatch_curl_set_string(handle, CURLOPT_URL, config.curlURL), "URL")
        try check(crubatch_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"), "PROTOCOLS_STR")
        try check(crubatch_curl_set_long(handle, CURLOPT_UPLOAD, 1), "UPLOAD")
        try check(crubatch_curl_set_long(handle, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
                  "ERRORBUFFER")
        try check(crubatch_curl_set_read_function(handle, { buffer, size, count, context in
            guard let buffer, let context else { return 0 }
            let source = Unmanaged<ReadSource>.fromOpaque(context).takeUnretainedValue()
            return source.read(into: buffer, capacity: size * count)
        }), "READFUNCTION")

        let useSSL: curl_usessl = switch config.security {
        case .startTLSIfOffered: CURLUSESSL_TRY
        case .startTLSRequired, .implicitTLS: CURLUSESSL_ALL
        case .none: CURLUSESSL_NONE
        }
        try check(crubatch_curl_set_long(handle, CURLOPT_USE_SSL, Int(useSSL.rawValue)), "USE_SSL")
        if config.insecure {
            try check(crubatch_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 0), "SSL_VERIFYPEER")
            try check(crubatch_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 0), "SSL_VERIFYHOST")
        }
        if let username = config.username {
            try check(crubatch_curl_set_string(handle, CURLOPT_USERNAME, username), "USERNAME")
        }
        if let password = config.password {
            try check(crubatch_curl_set_string(handle, CURLOPT_PASSWORD, password), "PASSWORD")
        }
        try check(crubatch_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(config.connectTimeout)),
                  "CONNECTTIMEOUT")
        try check(crubatch_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(config.timeout)), "TIMEOUT")

        // The commands and replies, to know which step failed and what the server said.
        try check(crubatch_curl_set_debug_function(handle, { _, type, data, size, context in
            guard let data, let context else { return 0 }
            let dialogue = Unmanaged<SMTPDialogue>.fromOpaque(context).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: size)
            if type == CURLINFO_HEADER_OUT { dialogue.sent(bytes) }
            if type == CURLINFO_HEADER_IN { dialogue.received(bytes) }
            return 0
        }), "DEBUGFUNCTION")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_DEBUGDATA, Unmanaged.passUnretained(dialogue).toOpaque()),
                  "DEBUGDATA")
        try check(crubatch_curl_set_long(handle, CURLOPT_VERBOSE, 1), "VERBOSE")

        // The sockets, so that a deadline can cut off a server that stops answering.
        let socketsContext = Unmanaged.passUnretained(sockets).toOpaque()
        try check(crubatch_curl_set_sockopt_function(handle, { context, socket, _ in
            guard let context else { return 0 }
            Unmanaged<SocketDeadline>.fromOpaque(context).takeUnretainedValue().register(socket)
            return 0 // CURL_SOCKOPT_OK
        }), "SOCKOPTFUNCTION")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_SOCKOPTDATA, socketsContext), "SOCKOPTDATA")
        try check(crubatch_curl_set_closesocket_function(handle, { context, socket in
            guard let context else { return -1 }
            return Unmanaged<SocketDeadline>.fromOpaque(context).takeUnretainedValue().close(socket)
        }), "CLOSESOCKETFUNCTION")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_CLOSESOCKETDATA, socketsContext), "CLOSESOCKETDATA")
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        max(1, Int(min(seconds, 86_400 * 365) * 1000))
    }

    private func check(_ code: CURLcode, _ option: String) throws(MailError) {
        guard code != CURLE_OK else { return }
        throw MailError(scope: .configuration, message: "libcurl rejected the option \(option): \(Self.describe(code))",
                        curlCode: Int32(bitPattern: code.rawValue))
    }

    // MARK: Errors

    private static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
    }

    /// The error for a failed send, judged by the step it failed at and the server's last error reply.
    private func failure(_ code: CURLcode) -> MailError {
        let reply = dialogue.lastErrorReply
        let step = dialogue.step
            ?? (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ? .connect : .greeting)
        let judgement = SMTPFailureJudgement(curlCode: code, reply: reply, step: step)
        var lastCode = 0
        if crubatch_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &lastCode) != CURLE_OK { lastCode = 0 }

        var detail = errorBuffer[0] == 0 ? Self.describe(code) : String(cString: errorBuffer)
        if let reply, !detail.contains(reply.text) {
            detail += "; the server said: \(reply.text)"
        }
        let server = configuration.maskedURL
        let summary = switch judgement.scope {
        case .message where step == .recipient: "the SMTP server \(server) refused a recipient"
        case .message: "the SMTP server \(server) refused the message"
        case .credentials: "the SMTP server \(server) refused the login"
        case .session where step == .connect: "could not reach the SMTP server \(server)"
        case .session, .configuration: "could not send through the SMTP server \(server)"
        }
        return MailError(scope: judgement.scope, message: scrub("\(summary) (\(step)): \(detail)"),
                         curlCode: Int32(bitPattern: code.rawValue), responseCode: reply?.code ?? lastCode,
                         step: step, isPermanent: judgement.isPermanent)
    }

    /// `text` without the password in any form, should anything ever echo it.
    private func scrub(_ text: String) -> String {
        guard let password = configuration.password else { return text }
        return Credentials(secret: password).scrub(text)
    }
}

/// The bytes of one message, handed to libcurl's read callback piece by piece.
private final class ReadSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}
