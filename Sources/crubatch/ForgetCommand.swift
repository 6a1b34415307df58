import ArgumentParser
import CruBatch

struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Erase one person's personal data (a request to be forgotten).",
        discussion: """
        Their name, email and phone are replaced by placeholders (sex and school year cleared), their memberships end, their ride offers and requests are cancelled, notifications about them or to them are deleted, and the copies of their data in earlier runs' change images are scrubbed. The request is recorded as a run (who, when) without the data. It cannot be undone.

        Example:
          crubatch forget jchang@calpoly.edu

        Exit codes: 0 forgotten; 1 no person has this email; 69 database unavailable; 75 an import of people, memberships or rides, or a place, is running.
        """)

    @Argument(help: "The person's email.") var email: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let console = output.console("forget")
        try console.run {
            console.finish(try PersonalDataEraser(connection: database.connect()).erase(email: email))
        }
    }
}
