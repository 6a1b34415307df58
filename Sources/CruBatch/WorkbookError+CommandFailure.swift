import SpreadsheetReader

extension WorkbookError: CommandFailure {
    public var exitStatus: ExitStatus { isFileProblem ? .dataError : .usage }
    public var errorCode: String { isFileProblem ? "unreadable-input" : "usage" }
    public var commandMessage: String { description }
}
