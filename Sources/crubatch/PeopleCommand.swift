import ArgumentParser
import CruBatch

struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "One person, one record: list probable duplicates, merge two people into one.",
        discussion: """
        Examples:
          crubatch people duplicates
          crubatch people duplicates --format csv --min-score 60 > pairs.csv
          crubatch people merge liz.smith@calpoly.edu lizzy.smith+cru@gmail.com
          crubatch people merge --from pairs.csv
        """,
        subcommands: [PeopleDuplicatesCommand.self, PeopleMergeCommand.self])
}

struct PeopleDuplicatesCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "List pairs of people who are probably the same person, strongest first, with a score and its reasons.",
        discussion: """
        A pair is compared only when it shares a key: the same phone; the same email once case, Gmail's dots and +tags and googlemail.com are set aside; the same email handle; the same given name and phone; the names swapped; and, when --min-score is low enough for names alone to reach it, the sound of a surname with the first initial, or the given name and last initial on one campus.

        Score (0-100): each agreement or difference adds its weight in bits, log2(m/u): how often it holds between two records of one person (m) over how often between two people of this list (u, counted in the list itself, so a common name or a handle made of the name weighs little, a rare name much). The weights are added to the odds of any two people of the list being one, and the sum s gives the score 100 / (1 + 2^-s). Each reason is printed with its weight. The default, 70, lists nearly no look-alikes; 50 or 30 shows more pairs to review.

        --format csv writes the columns score,keep_email,keep_name,drop_email,drop_name,reasons: review it (delete the rows that are two people, swap keep and drop where the other record should stay) and give it to `people merge --from`.
        """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, csv, json }

    @Option(help: "text (a table), csv (for review and people merge --from) or json.") var format: Format = .text
    @Option(name: .customLong("min-score"), help: "List pairs scoring at least this (0-100).")
    var minScore = PersonMatch.defaultMinimumScore
    @Flag(name: [.short, .long], help: "Print nothing when the command succeeds.") var quiet = false
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if !(0...100).contains(minScore) { throw ValidationError("--min-score must be between 0 and 100") }
    }

    var console: Console { Console(command: "people duplicates", quiet: quiet, json: format == .json) }

    func report(to console: Console) throws -> ExitStatus {
        let report = try DuplicatePeople(connection: database.connect()).find(minimumScore: minScore)
        return format == .csv ? console.finish(csv: report.csv) : console.finish(report)
    }
}

struct PeopleMergeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge two records of one person: DROP's memberships, rides, check-ins and messages go to KEEP.",
        discussion: """
        In one transaction, recorded as a run (`crubatch undo RUN` puts both people back): DROP's memberships move to KEEP (in a group both are in, KEEP's membership stays with the earlier join date), and so do DROP's ministries, the groups and teams DROP leads, ride offers and requests, check-ins and notifications. KEEP's empty fields (phone, sex, school year, grad year, campus, role) are filled from DROP's. DROP's email becomes an alias of KEEP: a later import of a row with that email updates KEEP. No one is told: moved memberships queue no message.

        --from FILE merges every row of a reviewed copy of `people duplicates --format csv` (columns keep_email and drop_email) in one run.

        Examples:
          crubatch people merge liz.smith@calpoly.edu lizzy.smith+cru@gmail.com --dry-run
          crubatch people merge liz.smith@calpoly.edu lizzy.smith+cru@gmail.com
          crubatch people merge --from pairs.csv

        Exit codes: 0 merged; 1 a person is not found, both emails are one person, or the merge would break a seated ride (the two in one car, or both driving or both riding to one event with the merged-away offer or request seated: cancel one first); 65 the pairs file cannot be read; 66 it does not exist; 69 database unavailable; 75 an import of people, memberships, rides or attendance, or a place, is running.
        """)

    @Argument(help: "The email of the person to keep.") var keep: String?
    @Argument(help: "The email of the person merged into KEEP.") var drop: String?
    @Option(help: ArgumentHelp("Merge the pairs of this CSV file (columns keep_email, drop_email).", valueName: "file"))
    var from: String?
    @Flag(help: "Merge in a transaction, report what would move, and roll back: write nothing.")
    var dryRun = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if (from == nil) == (keep == nil || drop == nil) || (from != nil && keep != nil) {
            throw ValidationError("give KEEP and DROP, or --from FILE")
        }
    }

    var console: Console { output.console("people merge") }

    func report(to console: Console) throws -> ExitStatus {
        let pairs = try from.map(PeopleMerge.pairs(fromFile:)) ?? [PeopleMerge.Pair(keep: keep!, drop: drop!)]
        return console.finish(try PeopleMerge(connection: database.connect()).merge(pairs, file: from, dryRun: dryRun))
    }
}
