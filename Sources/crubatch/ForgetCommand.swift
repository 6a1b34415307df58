import ArgumentParser
import CruBatch

struct ForgetCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Erase one person's personal data (a request to be forgotten).",
        discussion: """
        In the database: their name, email and phone are replaced by placeholders (sex and school year cleared), their memberships end, their ride offers and requests are cancelled, notifications about them or to them are deleted, their email aliases (from people merge) are deleted, and the copies of their data in earlier runs' change images are scrubbed. The request is recorded as a run (who, when) without the data. It cannot be undone.

        In the kept nightly exports: every dated folder of --exports DIR (by default the folder the last nightly run wrote into), and so latest, loses the rows that hold the person (by their email in any case, their name or their phone as the database held them): CSV rosters, data and rides files are rewritten atomically, a roster workbook that holds them is removed (the next nightly writes it again), and each folder's manifest.json gets the new rows and SHA-256. Calendars hold no people. Symbolic links in the folder are not followed. The report lists every file rewritten or removed.

        What forget cannot reach: emails already sent, copies outside the nightly folders (downloads, files mailed on, --out of single exports), and backups of the database or of the exports.

        The database erasure commits first. If an export file cannot be rewritten, it is left whole as it was, the report marks it NOT CLEANED, and the exit code is 73: fix the cause and delete those files (the database no longer knows the person, so forget cannot find them again; the next nightly writes its own files again).

        Example:
          crubatch forget jchang@calpoly.edu
          crubatch forget jchang@calpoly.edu --exports /srv/cru/exports

        Exit codes: 0 forgotten; 1 no person has this email; 64 --exports names no folder; 69 database unavailable; 73 erased, but some export files could not be cleaned; 75 an import of people, memberships or rides, or a place, is running.
        """)

    @Argument(help: "The person's email, or an email merged into them (people merge).") var email: String
    @Option(help: "The nightly folder (nightly's --out) whose dated folders to clean; default: the last nightly run's.")
    var exports: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("forget") }

    func report(to console: Console) throws -> ExitStatus {
        let report = try PersonalDataEraser(connection: database.connect()).erase(email: email, exports: exports)
        if report.exportsFailed {
            console.warn("crubatch: the person was erased from the database, but some nightly export files "
                + "could not be cleaned (listed as NOT CLEANED)")
        }
        return console.finish(report, status: report.exportsFailed ? .cannotCreate : .ok)
    }
}
