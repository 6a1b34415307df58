/// Why a URL could not be fetched. `message` names the URL with its credentials masked.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, which decides what the user can do about it.
    public enum Reason: Sendable, Equatable {
        /// The server could not be reached: no such host, connection refused, TLS failed.
        case unreachable
        /// The connection or the whole transfer took longer than its limit.
        case timedOut
        /// The server answered with this HTTP status (400 or more).
        case status(Int)
        /// A redirect pointed to a scheme other than http or https.
        case redirectRefused
        /// More redirects than the limit.
        case tooManyRedirects
        /// The body was larger than the limit.
        case tooLarge
        /// A setting libcurl refused, or the temporary file could not be written.
        case local
    }

    public var reason: Reason
    /// The URL as requested, credentials masked.
    public var url: String
    /// What went wrong, for people; names the URL (masked).
    public var message: String

    public init(reason: Reason, url: String, message: String) {
        (self.reason, self.url, self.message) = (reason, url, message)
    }

    public var description: String { message }
}
