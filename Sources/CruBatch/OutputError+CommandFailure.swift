import FileOutput

extension OutputError: CommandFailure {
    public var exitStatus: ExitStatus { .cannotCreate }
    public var errorCode: String { "cannot-write-output" }
    public var commandMessage: String { description }
}
