import MessageTemplates

/// A template that cannot be used stops `notify` before anything is claimed: exit 78, like the
/// other settings of the mail (a templates folder is configuration, not data).
extension TemplateError: CommandFailure {
    public var exitStatus: ExitStatus { .configuration }
    public var errorCode: String { "invalid-template" }
    public var commandMessage: String { "template \(description); nothing was sent" }
}
