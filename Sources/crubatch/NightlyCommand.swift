import ArgumentParser
import CruBatch
import Foundation

struct NightlyCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "nightly",
        abstract: "Export all rosters, every kind, the calendars and upcoming events' cars into OUT/YYYY-MM-DD, for cron.",
        discussion: """
        Rosters go to rosters/, every kind to data/, calendars to calendars/, and the cars of each event that shares rides and has not ended to rides/EVENT.csv. Everything is written into a temporary folder and renamed into place in one step, with a manifest.json (file, rows, bytes, sha256). OUT/latest, a symbolic link, points to the newest folder; the newest --keep folders are kept, and always the one just written. If anything fails, no dated folder appears, the previous one is untouched, and the exit code says why (69 database, 73 cannot write, or OUT/latest is not a symbolic link). Partial folders of killed runs are removed once they are an hour old.

        A file that bad data cannot give (a code that cannot name a file, a time zone that is not a tz database name) is skipped and listed under "errors" in manifest.json, and so is an event a calendar cannot hold (its end not after its start), which that calendar leaves out; everything else is written, and the exit code is 1.

        Example (cron, 02:30 every night; --quiet so cron mails only failures):
          30 2 * * *  crubatch nightly --quiet --out /srv/cru/exports --keep 14
        Rosters as workbooks for staff to open:
          crubatch nightly --out /srv/cru/exports --rosters xlsx
        """
    )

    @Option(help: "The folder that receives the dated folders.") var out: String
    @Option(help: "How many dated folders to keep.") var keep: Int = 14
    @Option(help: "csv: flat rosters for machines; xlsx: workbooks for people (all.xlsx with a sheet per group, and one per group).")
    var rosters: NightlyExport.RosterFormat = .csv
    @Option(help: "The day to file the export under (YYYY-MM-DD; default today), e.g. to redo a missed night.")
    var date: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var readOnly: ReadOnlyDatabaseOptions

    func validate() throws {
        if keep < 1 { throw ValidationError("--keep must be at least 1") }
        if let date, Self.parse(date) == nil { throw ValidationError("--date must look like 2026-11-22") }
    }

    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        return formatter.date(from: text).map { $0.addingTimeInterval(12 * 3600) }
    }

    var console: Console { output.console("nightly") }

    func report(to console: Console) throws -> ExitStatus {
        let job = NightlyExport(connection: try database.connect(), readingFrom: try readOnly.connect(),
                                outputDirectory: out, keep: keep,
                                date: date.flatMap(Self.parse) ?? Date(), rosters: rosters)
        let (folder, manifest) = try job.run()
        for skipped in manifest.errors {
            if let row = skipped.row {
                console.warn("crubatch: left \(row) out of \(skipped.file ?? "a file"): \(skipped.error)\n"
                             + "  hint: \(LeftOutRow.hint)")
            } else {
                console.warn("crubatch: skipped \(skipped.file ?? "a file"): \(skipped.error)")
            }
        }
        return console.finish(NightlyReport(folder: folder, manifest: manifest), status: manifest.errors.isEmpty ? .ok : .rejected)
    }
}

extension NightlyExport.RosterFormat: ExpressibleByArgument {}
