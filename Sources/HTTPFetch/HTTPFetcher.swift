import CLibCurl
import Credentials
import FileOutput
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libcurl's process-wide setup, done once, on first use.
private enum CurlGlobal {
    static let initResult: UInt32 = crubatch_curl_global_init_default().rawValue
}

/// How long and how much a fetch may take, and where it may be sent.
public struct FetchLimits: Sendable {
    /// Seconds to connect (TCP and TLS).
    public var connectTimeout: Double = 10
    /// Seconds for the whole transfer, redirects included.
    public var totalTimeout: Double = 120
    /// The largest body accepted, in bytes; enforced while the body streams in.
    public var maxBytes: Int64 = 200 * 1_000_000
    /// Redirects followed at most (only to http and https).
    public var maxRedirects = 5

    public init() {}
}

/// One GET request: the URL, the validators of the copy already held, and the CA bundle.
public struct FetchRequest: Sendable {
    /// An http:// or https:// URL (it may carry a user and password).
    public var url: String
    /// Sent as If-None-Match.
    public var etag: String?
    /// Sent as If-Modified-Since.
    public var lastModified: String?
    /// A PEM file of certificate authorities to trust instead of the system's (`--cacert`).
    public var caBundle: String?
    public var limits = FetchLimits()
    /// Follow a redirect from an internet address to a private, loopback or link-local one
    /// (refused by default: that is how a link reaches a metadata service or a local port).
    public var allowsPrivateRedirects = false

    public init(url: String, etag: String? = nil, lastModified: String? = nil, caBundle: String? = nil,
                limits: FetchLimits = FetchLimits()) {
        (self.url, self.etag, self.lastModified, self.caBundle, self.limits) = (url, etag, lastModified, caBundle, limits)
    }

    /// The URL safe to show: its password in every form replaced by `***`.
    public var maskedURL: String { HTTPFetcher.masked(url) }
}

/// What a fetch brought back.
public enum FetchOutcome: Sendable {
    /// 304: the copy named by the request's validators is still current.
    case notModified
    /// The body, in a temporary file the caller removes (`FetchedFile.remove`).
    case fetched(FetchedFile)
}

/// A body saved to a temporary file without a name (mode 0600): nothing of it is left behind
/// however the process ends. `path` reads it until `remove()`.
public struct FetchedFile: Sendable {
    private let file: UnnamedFile
    public let bytes: Int64
    public let etag: String?
    public let lastModified: String?
    public let contentType: String?

    init(file: UnnamedFile, bytes: Int64, etag: String?, lastModified: String?, contentType: String?) {
        (self.file, self.bytes, self.etag, self.lastModified, self.contentType) = (file, bytes, etag, lastModified, contentType)
    }

    /// A path that reads the body.
    public var path: String { file.path }

    /// Frees the file.
    public func remove() {
        file.close()
    }
}

/// Fetches one URL with libcurl to a temporary file: http and https only (redirects too), a
/// connect and a whole-transfer timeout, a size limit enforced while the body streams in, and
/// conditional requests. It knows HTTP, not what the file holds.
public enum HTTPFetcher {
    /// Fetches `request.url` into a new file in `directory`; throws `FetchError` naming the URL masked.
    public static func fetch(_ request: FetchRequest,
                             into directory: String = NSTemporaryDirectory()) throws(FetchError) -> FetchOutcome {
        let shown = request.maskedURL
        guard CurlGlobal.initResult == CURLE_OK.rawValue, let handle = curl_easy_init() else {
            throw FetchError(reason: .local, url: shown, message: "\(shown): libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        let sink = try BodySink(directory: directory, limit: request.limits.maxBytes, url: shown)
        var kept = false
        defer { if !kept { sink.discard() } }

        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        if let etag = request.etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified = request.lastModified {
            headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)")
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        let limits = request.limits
        func set(_ code: CURLcode, _ option: String) throws(FetchError) {
            guard code != CURLE_OK else { return }
            throw FetchError(reason: .local, url: shown,
                             message: "\(shown): libcurl refused the option \(option): \(describe(code))")
        }
        try set(crubatch_curl_set_string(handle, CURLOPT_URL, request.url), "URL")
        try set(crubatch_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        try set(crubatch_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "REDIR_PROTOCOLS_STR")
        try set(crubatch_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1), "FOLLOWLOCATION")
        try set(crubatch_curl_set_long(handle, CURLOPT_MAXREDIRS, limits.maxRedirects), "MAXREDIRS")
        try set(crubatch_curl_set_long(handle, CURLOPT_FAILONERROR, 1), "FAILONERROR")
        try set(crubatch_curl_set_long(handle, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try set(crubatch_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(limits.connectTimeout)),
                "CONNECTTIMEOUT")
        try set(crubatch_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(limits.totalTimeout)), "TIMEOUT")
        // A declared length over the limit is refused before the body comes; the sink refuses the rest.
        try set(crubatch_curl_set_long(handle, CURLOPT_MAXFILESIZE, Int(clamping: limits.maxBytes)), "MAXFILESIZE")
        try set(crubatch_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, ""), "ACCEPT_ENCODING")
        try set(crubatch_curl_set_string(handle, CURLOPT_USERAGENT, "crubatch"), "USERAGENT")
        try set(crubatch_curl_set_list(handle, CURLOPT_HTTPHEADER, headers), "HTTPHEADER")
        try set(crubatch_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
                "ERRORBUFFER")
        if let caBundle = request.caBundle { try set(crubatch_curl_set_string(handle, CURLOPT_CAINFO, caBundle), "CAINFO") }
        let addresses = AddressGuard(allowsLocalRedirects: request.allowsPrivateRedirects)
        try set(crubatch_curl_set_opensocket_function(handle, { context, _, address in
            guard let context, let address else { return CURL_SOCKET_BAD }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard crubatch_curl_address_text(address, &text, socklen_t(text.count)) == 0,
                  Unmanaged<AddressGuard>.fromOpaque(context).takeUnretainedValue()
                    .admits(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            else { return CURL_SOCKET_BAD }
            return crubatch_curl_open_socket(address)
        }), "OPENSOCKETFUNCTION")
        try set(crubatch_curl_set_pointer(handle, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(addresses).toOpaque()),
                "OPENSOCKETDATA")
        try set(crubatch_curl_set_write_function(handle, { data, size, count, context in
            guard let data, let context else { return 0 }
            return Unmanaged<BodySink>.fromOpaque(context).takeUnretainedValue()
                .write(UnsafeRawBufferPointer(start: data, count: size * count))
        }), "WRITEFUNCTION")
        try set(crubatch_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()),
                "WRITEDATA")

        let result = withExtendedLifetime((sink, addresses)) { curl_easy_perform(handle) }
        var status = 0
        _ = crubatch_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if let refused = addresses.refusedAddress {
            throw FetchError(reason: .redirectRefused, url: shown,
                             message: "\(shown): refused a redirect to \(effectiveURL(handle) ?? refused) (\(refused)), an address of a private network or of this machine; give --allow-private-redirects if the file really is there")
        }
        guard result == CURLE_OK else {
            throw failure(result, status: status, handle: handle, sink: sink, limits: limits, shown: shown,
                          detail: errorBuffer[0] == 0 ? describe(result) : String(cString: errorBuffer))
        }
        if status == 304 {
            // Without validators there is no copy the answer could mean: it brought no file.
            guard request.etag != nil || request.lastModified != nil else {
                throw FetchError(reason: .status(304), url: shown,
                                 message: "\(shown): the server answered 304 Not Modified to a request that named no copy to compare with, and sent no file")
            }
            return .notModified
        }
        kept = true
        return .fetched(FetchedFile(file: sink.file, bytes: sink.count, etag: header("ETag", handle),
                                    lastModified: header("Last-Modified", handle),
                                    contentType: header("Content-Type", handle)))
    }

    /// The error for a failed transfer, judged by libcurl's code and the last HTTP status.
    private static func failure(_ code: CURLcode, status: Int, handle: UnsafeMutableRawPointer, sink: BodySink,
                                limits: FetchLimits, shown: String, detail: String) -> FetchError {
        let scrubbed = Credentials(in: shown).scrub(detail)
        switch code {
        case CURLE_HTTP_RETURNED_ERROR:
            return FetchError(reason: .status(status), url: shown, message: "\(shown): the server answered HTTP \(status)")
        case CURLE_WRITE_ERROR where sink.exceeded, CURLE_FILESIZE_EXCEEDED:
            return FetchError(reason: .tooLarge, url: shown,
                              message: "\(shown): the file is larger than the limit of \(limits.maxBytes) bytes (--max-bytes)")
        case CURLE_OPERATION_TIMEDOUT:
            // Microseconds to the connection, 0 when none was made.
            var connected = 0
            _ = crubatch_curl_get_long(handle, CURLINFO_CONNECT_TIME_T, &connected)
            return FetchError(reason: .timedOut, url: shown, message: connected == 0
                ? "\(shown): no connection within \(seconds(limits.connectTimeout)) s"
                : "\(shown): no complete answer within \(seconds(limits.totalTimeout)) s (--fetch-timeout)")
        case CURLE_TOO_MANY_REDIRECTS:
            return FetchError(reason: .tooManyRedirects, url: shown,
                              message: "\(shown): more than \(limits.maxRedirects) redirects (a redirect loop?)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The URL libcurl was about to follow when the protocol was refused.
            let location = effectiveURL(handle) ?? "another scheme"
            return FetchError(reason: .redirectRefused, url: shown,
                              message: "\(shown): refused a redirect to \(location): only http and https are followed")
        case CURLE_WRITE_ERROR:
            return FetchError(reason: .local, url: shown, message: "\(shown): could not save the download: \(scrubbed)")
        default:
            return FetchError(reason: .unreachable, url: shown, message: "\(shown): could not fetch: \(scrubbed)")
        }
    }

    /// The URL of the last request libcurl made or was about to make, masked.
    private static func effectiveURL(_ handle: UnsafeMutableRawPointer) -> String? {
        var target: UnsafePointer<CChar>?
        _ = crubatch_curl_get_string(handle, CURLINFO_EFFECTIVE_URL, &target)
        return target.map { Credentials.masked(String(cString: $0)) }
    }

    /// The last response's header `name`, or nil.
    private static func header(_ name: String, _ handle: UnsafeMutableRawPointer) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let value = found?.pointee.value else { return nil }
        return String(cString: value)
    }

    private static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        max(1, Int(min(seconds, 86_400 * 365) * 1000))
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The temporary file a body streams into, refusing bytes past the limit.
private final class BodySink {
    let file: UnnamedFile
    private let limit: Int64
    private let url: String
    private(set) var count: Int64 = 0
    private(set) var exceeded = false

    init(directory: String, limit: Int64, url: String) throws(FetchError) {
        do {
            file = try UnnamedFile(in: directory)
        } catch {
            throw FetchError(reason: .local, url: url, message: "\(url): \(error.reason) in \(directory)")
        }
        (self.limit, self.url) = (limit, url)
    }

    /// Appends `bytes`; returns how many were taken (fewer stops the transfer).
    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard count + Int64(bytes.count) <= limit else {
            exceeded = true
            return 0
        }
        do {
            try file.write(bytes)
        } catch {
            return 0
        }
        count += Int64(bytes.count)
        return bytes.count
    }

    /// Frees the file of a body that is not kept.
    func discard() {
        file.close()
    }
}

extension HTTPFetcher {
    /// `url` safe to show: its password in every form replaced by `***`.
    public static func masked(_ url: String) -> String {
        Credentials.masked(url)
    }
}
