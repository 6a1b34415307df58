import Credentials
import Foundation

/// Where and how to send mail, read from a URL:
///
/// - `smtp://[user[:password]@]host[:port][?options]`: plain SMTP upgraded with STARTTLS when the
///   server offers it; default port 587.
/// - `smtps://[user[:password]@]host[:port][?options]`: TLS from the start; default port 465.
///
/// The user and password are percent-decoded (write `@` as `%40`, `:` as `%3A`). Options:
/// `tls=try` (the smtp:// default), `tls=require` (fail unless STARTTLS works), `tls=none` (never
/// TLS); `verify=no` (accept any certificate, for self-signed test servers); `timeout=SECONDS` for
/// a whole send (default 30); `connect_timeout=SECONDS` (default: the smaller of 10 and `timeout`).
public struct SMTPConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is protected.
    public enum Security: String, Sendable, Hashable {
        /// smtp:// using STARTTLS when the server offers it (`tls=try`, the default).
        case startTLSIfOffered = "try"
        /// smtp:// that fails unless STARTTLS succeeds (`tls=require`).
        case startTLSRequired = "require"
        /// smtp:// without TLS (`tls=none`).
        case none = "none"
        /// smtps://: TLS from the first byte.
        case implicitTLS = "implicit"
    }

    /// The server's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The server's port.
    public var port: Int
    /// The user to authenticate as, if any (decoded).
    public var username: String?
    /// The password, if any (decoded). Never shown by `maskedURL` or `description`.
    public var password: String?
    /// How the connection is protected.
    public var security: Security
    /// Accept any server certificate and host name (`verify=no`).
    public var insecure: Bool
    /// The longest a whole send may take, in seconds.
    public var timeout: Double
    /// The longest connecting may take, in seconds.
    public var connectTimeout: Double
    /// The domain sent with EHLO (the URL's path), if any.
    public var heloDomain: String?

    /// The default port of smtp:// (submission).
    public static let defaultPort = 587
    /// The default port of smtps://.
    public static let defaultTLSPort = 465
    /// The default `timeout`, in seconds.
    public static let defaultTimeout = 30.0

    /// A configuration from its parts.
    public init(host: String, port: Int? = nil, username: String? = nil, password: String? = nil,
                security: Security = .startTLSIfOffered, insecure: Bool = false,
                timeout: Double = SMTPConfiguration.defaultTimeout, connectTimeout: Double? = nil,
                heloDomain: String? = nil) {
        self.host = host
        self.port = port ?? (security == .implicitTLS ? Self.defaultTLSPort : Self.defaultPort)
        self.username = username
        self.password = password
        self.security = security
        self.insecure = insecure
        self.timeout = timeout
        self.connectTimeout = connectTimeout ?? min(10, timeout)
        self.heloDomain = heloDomain
    }

    /// Reads a configuration from an `smtp://` or `smtps://` URL (see the type's documentation).
    /// The error's message never contains the password.
    public init(url text: String) throws(MailError) {
        let fail = { (why: String) in
            MailError(scope: .configuration, message: "invalid SMTP URL \(Self.mask(text)): \(why)")
        }
        let parts = try URLParts(text, fail: fail)
        let (host, port) = try Self.hostAndPort(parts.authority, fail: fail)
        let (username, password) = try Self.credentials(parts.userInfo, fail: fail)
        let options = try URLOptions(parts.query, implicitTLS: parts.scheme == "smtps", fail: fail)
        self.init(host: host, port: port, username: username, password: password,
                  security: options.security, insecure: options.insecure, timeout: options.timeout,
                  connectTimeout: options.connectTimeout, heloDomain: parts.path.isEmpty ? nil : String(parts.path))
    }

    /// An SMTP URL cut into its parts, none of them decoded yet.
    private struct URLParts {
        var scheme: String
        var userInfo: Substring?
        /// The host and port: `host`, `host:port`, `[v6]` or `[v6]:port`.
        var authority: Substring
        var path: Substring = ""
        var query: Substring = ""

        init(_ text: String, fail: (String) -> MailError) throws(MailError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let schemeEnd = trimmed.range(of: "://") else { throw fail("expected smtp://… or smtps://…") }
            scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "smtp" || scheme == "smtps" else {
                throw fail("the scheme must be smtp or smtps, not \(scheme)")
            }
            var rest = trimmed[schemeEnd.upperBound...]
            if let mark = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: mark)...]
                rest = rest[..<mark]
            }
            // The user information ends at the last "@" (so an unencoded "@" in a password still works).
            if let at = rest.lastIndex(of: "@") {
                userInfo = rest[..<at]
                rest = rest[rest.index(after: at)...]
            }
            if let slash = rest.firstIndex(of: "/") {
                path = rest[rest.index(after: slash)...]
                rest = rest[..<slash]
            }
            authority = rest
        }
    }

    /// The host (an IPv6 address without its brackets) and the port, if the URL gives one.
    private static func hostAndPort(_ authority: Substring,
                                    fail: (String) -> MailError) throws(MailError) -> (String, Int?) {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unclosed [ in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw fail("no host") }
        guard let portText else { return (String(host), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw fail("the port must be a number from 1 to 65535")
        }
        return (String(host), port)
    }

    /// The user name (nil when empty) and password, percent-decoded.
    private static func credentials(_ userInfo: Substring?,
                                    fail: (String) -> MailError) throws(MailError) -> (String?, String?) {
        guard let userInfo else { return (nil, nil) }
        let colon = userInfo.firstIndex(of: ":")
        let rawUser = colon.map { userInfo[..<$0] } ?? userInfo
        guard let user = String(rawUser).removingPercentEncoding else {
            throw fail("bad percent-encoding in the user name")
        }
        guard let colon else { return (user.isEmpty ? nil : user, nil) }
        guard let password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
            throw fail("bad percent-encoding in the password")
        }
        return (user.isEmpty ? nil : user, password)
    }

    /// The options of an SMTP URL's query (`tls`, `verify`, `timeout`, `connect_timeout`).
    private struct URLOptions {
        var security: Security
        var insecure = false
        var timeout = SMTPConfiguration.defaultTimeout
        var connectTimeout: Double?

        init(_ query: Substring, implicitTLS: Bool, fail: (String) -> MailError) throws(MailError) {
            security = implicitTLS ? .implicitTLS : .startTLSIfOffered
            for item in query.split(separator: "&") where !item.isEmpty {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = pair[0].lowercased()
                let raw = pair.count > 1 ? String(pair[1]) : ""
                let value = (raw.removingPercentEncoding ?? raw).lowercased()
                try set(key, to: value, implicitTLS: implicitTLS, fail: fail)
            }
        }

        private mutating func set(_ key: String, to value: String, implicitTLS: Bool,
                                  fail: (String) -> MailError) throws(MailError) {
            switch key {
            case "tls":
                if implicitTLS {
                    guard value == "require" || value == "implicit" else {
                        throw fail("smtps:// always uses TLS; tls=\(value) does not apply")
                    }
                } else {
                    guard let chosen = Security(rawValue: value), chosen != .implicitTLS else {
                        throw fail("tls must be try, require or none, not \"\(value)\"")
                    }
                    security = chosen
                }
            case "verify":
                switch value {
                case "no", "false", "0", "off": insecure = true
                case "yes", "true", "1", "on": insecure = false
                default: throw fail("verify must be yes or no, not \"\(value)\"")
                }
            case "timeout", "connect_timeout":
                guard let seconds = Double(value), seconds > 0, seconds.isFinite else {
                    throw fail("\(key) must be a positive number of seconds, not \"\(value)\"")
                }
                if key == "timeout" { timeout = seconds } else { connectTimeout = seconds }
            default:
                throw fail("unknown option \"\(key)\" (known: tls, verify, timeout, connect_timeout)")
            }
        }
    }

    /// The URL handed to libcurl: scheme, host, port and EHLO domain, without credentials.
    public var curlURL: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let hostPart = host.contains(":") ? "[\(host)]" : host
        var url = "\(scheme)://\(hostPart):\(port)"
        if let heloDomain { url += "/" + heloDomain }
        return url
    }

    /// The configuration as a URL with the password shown as `***`, safe for logs.
    public var maskedURL: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        var url = "\(scheme)://"
        if let username {
            url += Self.encodeUserInfo(username)
            if password != nil { url += ":***" }
            url += "@"
        } else if password != nil {
            url += ":***@"
        }
        url += host.contains(":") ? "[\(host)]" : host
        url += ":\(port)"
        if let heloDomain { url += "/" + heloDomain }
        var options: [String] = []
        if security == .startTLSRequired || security == .none { options.append("tls=\(security.rawValue)") }
        if insecure { options.append("verify=no") }
        if timeout != Self.defaultTimeout { options.append("timeout=\(Self.seconds(timeout))") }
        if connectTimeout != min(10, timeout) { options.append("connect_timeout=\(Self.seconds(connectTimeout))") }
        if !options.isEmpty { url += "?" + options.joined(separator: "&") }
        return url
    }

    /// Same as `maskedURL`.
    public var description: String { maskedURL }

    /// `text` (an SMTP URL as typed) with any password replaced by `***`, the same way database URLs are.
    public static func mask(_ text: String) -> String {
        Credentials.masked(text)
    }

    private static func encodeUserInfo(_ text: String) -> String {
        var allowed = CharacterSet.urlUserAllowed
        allowed.remove(charactersIn: ":@/?#[]%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
