import CLibCurl
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
public final class SMTPTransport: MailTransport, @unchecked Sendable {
    /// Where and how this transport sends.
    public let configuration: SMTPConfiguration

    private let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let replies = ServerReplies()
    private let lock = NSLock()

    /// A transport for `configuration`. Nothing is sent and no connection is made until `send`.
    public init(configuration: SMTPConfiguration) throws(MailError) {
        guard CurlGlobal.initResult == CURLE_OK.rawValue else {
            throw MailError(kind: .other, message: "libcurl could not be initialised",
                            curlCode: Int32(bitPattern: CurlGlobal.initResult))
        }
        guard let handle = curl_easy_init() else {
            throw MailError(kind: .other, message: "libcurl could not create a handle")
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
        curl_easy_cleanup(handle) // says QUIT on a connection still open
        errorBuffer.deallocate()
    }

    /// Sends `message` to all of its recipients. Throws `.unavailable` when the server cannot be
    /// reached, `.rejected` when it refuses (`isPermanent` for a 5xx answer), `.other` otherwise.
    public func send(_ message: EmailMessage) throws(MailError) {
        guard !message.to.isEmpty else {
            throw MailError(kind: .other, message: "the message \(message.cleanMessageID) has no recipients",
                            isPermanent: true)
        }
        for address in [message.from] + message.to where !EmailAddress.isValidAddress(address.address) {
            throw MailError(kind: .other, message: "not an email address: \"\(MailEncoding.singleLine(address.address))\"",
                            isPermanent: true)
        }
        let source = ReadSource(message.rendered())
        lock.lock()
        defer { lock.unlock() }

        var recipients: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipients) }
        for address in message.to {
            guard let appended = curl_slist_append(recipients, "<\(address.address)>") else {
                throw MailError(kind: .other, message: "out of memory building the recipient list")
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
        replies.reset()

        let result = withExtendedLifetime(source) { curl_easy_perform(handle) }
        guard result != CURLE_OK else { return }

        var responseCode = 0
        if crubatch_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &responseCode) != CURLE_OK { responseCode = 0 }
        throw failure(result, responseCode: responseCode)
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

        // The server's replies, for error messages (libcurl only reports "RCPT failed: 550").
        try check(crubatch_curl_set_debug_function(handle, { _, type, data, size, context in
            guard type == CURLINFO_HEADER_IN, let data, let context else { return 0 }
            let replies = Unmanaged<ServerReplies>.fromOpaque(context).takeUnretainedValue()
            replies.record(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }), "DEBUGFUNCTION")
        try check(crubatch_curl_set_pointer(handle, CURLOPT_DEBUGDATA, Unmanaged.passUnretained(replies).toOpaque()),
                  "DEBUGDATA")
        try check(crubatch_curl_set_long(handle, CURLOPT_VERBOSE, 1), "VERBOSE")
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        max(1, Int(min(seconds, 86_400 * 365) * 1000))
    }

    private func check(_ code: CURLcode, _ option: String) throws(MailError) {
        guard code != CURLE_OK else { return }
        throw MailError(kind: .other, message: "libcurl rejected the option \(option): \(Self.describe(code))",
                        curlCode: Int32(bitPattern: code.rawValue))
    }

    // MARK: Errors

    private static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
    }

    private func failure(_ code: CURLcode, responseCode: Int) -> MailError {
        var detail = errorBuffer[0] == 0 ? Self.describe(code) : String(cString: errorBuffer)
        if responseCode >= 400, let reply = replies.last, !detail.contains(reply) {
            detail += "; the server said: \(reply)"
        }
        let kind: MailError.Kind
        if responseCode == 421 {
            kind = .unavailable
        } else if responseCode >= 400 {
            kind = .rejected
        } else {
            kind = Self.kind(of: code)
        }
        let server = configuration.maskedURL
        let summary = switch kind {
        case .unavailable: "could not reach the SMTP server \(server)"
        case .rejected: "the SMTP server \(server) refused the message"
        case .other: "sending mail through \(server) failed"
        }
        return MailError(kind: kind, message: scrub("\(summary): \(detail)"),
                         curlCode: Int32(bitPattern: code.rawValue), responseCode: responseCode)
    }

    private static func kind(of code: CURLcode) -> MailError.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT,
             CURLE_WEIRD_SERVER_REPLY, CURLE_OPERATION_TIMEDOUT, CURLE_SSL_CONNECT_ERROR,
             CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_PEER_FAILED_VERIFICATION, CURLE_USE_SSL_FAILED,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            .unavailable
        case CURLE_LOGIN_DENIED:
            .rejected
        default:
            .other
        }
    }

    /// `text` without the password (plain or percent-encoded), should anything ever echo it.
    private func scrub(_ text: String) -> String {
        guard let password = configuration.password, !password.isEmpty else { return text }
        var result = text.replacingOccurrences(of: password, with: "***")
        if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != password {
            result = result.replacingOccurrences(of: encoded, with: "***")
        }
        return result
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

/// The last error reply (4xx or 5xx) the server sent, captured through libcurl's debug callback;
/// later replies (such as "221 Bye" after libcurl gives up) do not replace it.
private final class ServerReplies {
    private(set) var last: String?

    func reset() {
        last = nil
    }

    func record(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard let first = line.first, first == "4" || first == "5" else { continue }
            last = String(line.prefix(300))
        }
    }
}
