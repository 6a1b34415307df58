import ArgumentParser
import CruBatch

struct UndoCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Undo a run (import, sync or place): put back every row it changed, in one transaction.",
        discussion: """
        Rows the run inserted are deleted; rows it updated, archived or ended get their old values back; leader notifications it queued that are still pending are cancelled. A membership it added whose joined message a leader already received is ended instead of deleted, and each leader told of the join is sent a left message (--no-notify deletes it and tells no one); the report counts the welcome and joined messages already sent. If any of those rows changed after the run (a later import, place or the app), or a later row uses one the run added, nothing is written and the rows are listed; --force overwrites them.

        Examples:
          crubatch runs show 12 --rows
          crubatch undo 12

        Exit codes: 0 undone; 1 rows changed after the run, or the run cannot be undone; 64 no such run; 69 database unavailable; 75 an import or place is running.
        """)

    @Argument(help: ArgumentHelp("The run's id (see `crubatch runs`).", valueName: "run")) var runID: Int
    @Flag(help: "Undo even rows that changed after the run, overwriting those changes.") var force = false
    @Flag(help: "Tell no leader of a join the undo takes back (its membership is deleted, not ended).")
    var noNotify = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    var console: Console { output.console("undo") }

    func report(to console: Console) throws -> ExitStatus {
        let report = try Undo(connection: database.connect()).run(runID, force: force, notify: !noNotify)
        return console.finish(report, status: report.exitStatus)
    }
}
