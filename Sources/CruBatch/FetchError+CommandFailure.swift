import HTTPFetch

extension FetchError: CommandFailure {
    /// A server that cannot be reached, fails or misdirects is unavailable (69: try again later,
    /// or fix the link); a file over the size limit is bad content (65); a download that cannot be
    /// saved is 73.
    public var exitStatus: ExitStatus {
        switch reason {
        case .unreachable, .timedOut, .status, .redirectRefused, .tooManyRedirects: .unavailable
        case .tooLarge: .dataError
        case .local: .cannotCreate
        }
    }

    public var errorCode: String {
        switch reason {
        case .unreachable: "source-unreachable"
        case .timedOut: "source-timeout"
        case .status: "source-http-error"
        case .redirectRefused: "source-redirect-refused"
        case .tooManyRedirects: "source-redirect-loop"
        case .tooLarge: "source-too-large"
        case .local: "source-not-saved"
        }
    }

    public var commandMessage: String { message }
}
