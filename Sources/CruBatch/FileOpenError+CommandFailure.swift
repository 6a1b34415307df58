import CSVStream

extension FileOpenError: CommandFailure {
    public var exitStatus: ExitStatus {
        switch self {
        case .notFound: .noInput
        case .unreadable: .dataError
        }
    }

    public var errorCode: String {
        switch self {
        case .notFound: "file-not-found"
        case .unreadable: "unreadable-input"
        }
    }

    public var commandMessage: String { description }
}
