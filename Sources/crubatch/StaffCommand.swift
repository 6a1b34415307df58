import ArgumentParser
import CruBatch
import Foundation

struct StaffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff",
        abstract: "Manage who may sign in to the staff console (`crubatch serve`).",
        discussion: """
        Roles: admin (everything), campus (only the rows of its --campus codes), viewer (reads only).
        A password is read from standard input when it is not a terminal, else asked for without echo;
        it needs at least \(StaffAccounts.minimumPasswordLength) characters and is stored only as a bcrypt hash.

        Examples:
          crubatch staff add ana@cru.org --role campus --campus calpoly --campus cuesta
          printf '%s\\n' "$PASSWORD" | crubatch staff add admin@cru.org --role admin
          crubatch staff list
          crubatch staff password ana@cru.org
          crubatch staff remove ana@cru.org
        """,
        subcommands: [StaffAddCommand.self, StaffListCommand.self, StaffPasswordCommand.self, StaffRemoveCommand.self],
        defaultSubcommand: StaffListCommand.self)

    /// The password from standard input: a line when it is piped, asked for without echo at a terminal.
    static func readPassword() throws -> String {
        if isatty(STDIN_FILENO) != 0 {
            guard let typed = getpass("Password: ") else { throw CruBatchError.usage("no password given") }
            return String(cString: typed)
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CruBatchError.usage("no password on standard input")
        }
        return line
    }
}

extension StaffRole: ExpressibleByArgument {}

struct StaffAddCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an account; its password comes from standard input.")

    @Argument(help: "The account's email address; it signs in with it.") var email: String
    @Option(help: "admin, campus or viewer.") var role: StaffRole
    @Option(name: .customLong("campus"), help: ArgumentHelp("A campus code the account works on (repeat for several); campus accounts only.", valueName: "code"))
    var campuses: [String] = []
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("staff add") }

    func report(to console: Console) throws -> ExitStatus {
        let password = try StaffCommand.readPassword()
        let account = try StaffAccounts(connection: database.connect())
            .add(email: email, role: role, campuses: campuses, password: password)
        return console.finish(StaffAccountChange(action: "added", email: account.email))
    }
}

struct StaffListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts, their roles and campuses.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("staff list") }

    func report(to console: Console) throws -> ExitStatus {
        console.finish(StaffAccountList(accounts: try StaffAccounts(connection: database.connect()).list()))
    }
}

struct StaffPasswordCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Set an account's password (from standard input); its sessions end.")

    @Argument(help: "The account's email address.") var email: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("staff password") }

    func report(to console: Console) throws -> ExitStatus {
        let password = try StaffCommand.readPassword()
        try StaffAccounts(connection: database.connect()).setPassword(email: email, password: password)
        return console.finish(StaffAccountChange(action: "new password for", email: email.lowercased()))
    }
}

struct StaffRemoveCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an account and end its sessions.")

    @Argument(help: "The account's email address.") var email: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("staff remove") }

    func report(to console: Console) throws -> ExitStatus {
        try StaffAccounts(connection: database.connect()).remove(email: email)
        return console.finish(StaffAccountChange(action: "removed", email: email.lowercased()))
    }
}
