import ArgumentParser
import CruBatch
import FileOutput
import CSVStream

struct PlaceCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "place",
        abstract: "Place \"Get Involved\" questionnaire answers into community groups.",
        discussion: """
        FILE is a questionnaire export (e.g. Google Forms): timestamp, name (or first and last name), email, phone, sex, school year, campus, ministries (several, separated by , or ;) and availability, free text such as "Mon evening; Tue 7-9pm; Thursday after 6". Long question titles such as "When are you free to meet each week?" are recognised; map others with --map.

        Each answer, in file order, in one transaction: the student is saved (matched on email) with the chosen ministries, then placed in a group of those ministries on that campus that admits the student's sex and school year, meets for the whole meeting (90 minutes) inside the availability, and has room. The group with the fewest members wins (then the earliest meeting, Monday first, then the code). A student already in a group of a chosen ministry is not placed again, so re-running a file is safe. Each student placed is sent a welcome (the group, when and where it meets, each leader's name, email and phone) and each leader a "joined" message, by `crubatch notify`; --no-welcome leaves the welcomes out, --no-notify records every message as suppressed (never sent).

        Campus and ministries are read by code or name as import reads them: "Cal Poly", "Cal Poly SLO", "Cru" (the Cru ministry of the student's campus). A student whose sex is not given ("Prefer not to say") fits mixed groups only; one whose year is not known ("Transfer", "Class of 2028") fits groups open to every year only.

        Availability: Monday, Mondays, Mon, Tue/Tues/Tu, Thu/Thurs/Th/R, M, W, F; runs of day letters MWF, TTh; Mon/Wed, Mon & Wed, Monday and Wednesday, Monday or Wednesday, Mon-Thu, weekdays, weekends; but/except/not leave days out (any time but Friday); morning (06-12), afternoon (12-17), evening or night (17-22), weeknights, anytime, flexible; 7-9pm, 6:30pm-9pm, 11am-1pm, after 6 (a bare hour is pm); a single time is when a meeting may start (Tuesday 7pm); pieces separated by ; or ,. Text that cannot be read is reported (type-error), never guessed.

        Examples:
          crubatch place answers.csv --dry-run
          crubatch place answers.csv --no-welcome     leaders are told, students are not emailed
          crubatch place answers.csv --format csv > placements.csv
          crubatch place form.csv --map availability="When can you meet?"
          crubatch place "Get Involved (Responses).xlsx" --sheet "Form Responses 1"

        Exit codes: 0 every answer placed; 1 some could not be placed; 65 unreadable file; 66 no such file; 69 database unavailable; 75 another place is running.
        """
    )

    @Argument(help: "The questionnaire export (CSV or .xlsx).")
    var file: String

    @Option(help: "The sheet of an .xlsx workbook to read (default: the first).")
    var sheet: String?

    @Flag(help: "Place everything in a transaction, report, and roll back: write nothing.")
    var dryRun = false

    @Option(help: "text (table on stdout, diagnostics on stderr), json (one document) or csv (one row per answer).")
    var format: PlaceFormat = .text

    @Flag(name: [.short, .long], help: "Print nothing when every answer is placed (or already was). Problems still go to stderr.")
    var quiet = false

    @Option(name: .customLong("map"), parsing: .singleValue,
            help: ArgumentHelp("Read FIELD from the column titled TITLE (repeatable, or several separated by commas; TITLE=FIELD works too). FIELD: \(PlaceField.acceptedList).",
                               valueName: "FIELD=TITLE"))
    var map: [String] = []

    @Option(help: "Text encoding of the file: utf-8 or windows-1252.")
    var encoding: String = "utf-8"

    @Flag(name: .customLong("no-welcome"), help: "Do not email the students placed a welcome (their leaders are still told).")
    var noWelcome = false

    @Flag(name: .customLong("no-notify"), help: "Tell nobody: the run's messages are recorded as suppressed, never sent.")
    var noNotify = false

    @OptionGroup var html: ReportOption
    @OptionGroup var database: DatabaseOptions

    enum PlaceFormat: String, ExpressibleByArgument, CaseIterable { case text, json, csv }

    func columnMap() throws -> [PlaceField: String] {
        try ColumnMapOption.parse(ColumnMapOption.entries(map), field: PlaceField.init(argument:), name: \.rawValue, fields: PlaceField.acceptedList,
                                  example: "availability=\"When are you free?\"")
    }

    func validate() throws {
        _ = try columnMap()
        if let clash = OutputClash.find(outputs: [("--report", html.report)].compactMap { option, path in path.map { (option, $0) } },
                                        inputs: [file]) {
            throw ValidationError(clash)
        }
        if TextEncoding(rawValue: encoding.lowercased()) == nil {
            throw ValidationError("--encoding must be utf-8 or windows-1252 (got \"\(encoding)\")")
        }
    }

    var console: Console { Console(command: "place", quiet: quiet, json: format == .json) }

    func report(to console: Console) throws -> ExitStatus {
        var options = PlaceOptions()
        options.dryRun = dryRun
        options.columnMap = try columnMap()
        options.encoding = TextEncoding(rawValue: encoding.lowercased()) ?? .utf8
        options.sheet = sheet
        options.messages = JoinMessages(notify: !noNotify, welcome: !noWelcome)
        let report = try Placer(options: options).run(path: file, connect: database.connect)
        if let target = html.report { try HTMLReport.write(report, path: file, options: options, to: target) }
        if format != .json {
            for diagnostic in report.diagnostics { console.warn(diagnostic.rendered) }
        }
        guard format == .csv else { return console.finish(report, status: report.exitStatus) }
        // An unreadable file has no rows: its diagnostics, on stderr, are the whole answer.
        return report.unreadable ? report.exitStatus : console.finish(csv: report.csv(), status: report.exitStatus)
    }
}
