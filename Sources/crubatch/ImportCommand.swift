import ArgumentParser
import CruBatch
import FileOutput
import CSVStream
import Foundation

/// Options `import` and `validate` share: how to read the file and how to report.
struct ReadOptions: ParsableArguments {
    @Option(help: "The sheet of an .xlsx workbook to read (default: the first).")
    var sheet: String?

    @Option(help: "Field delimiter: , ; or TAB (default: sniffed from the header line).")
    var delimiter: String?

    @Option(help: "Text encoding of the file: utf-8 or windows-1252.")
    var encoding: String = "utf-8"

    @Option(help: "How slash dates are read: mdy (9/15/2026, the default) or dmy (15/9/2026; a date that could be either is refused).")
    var dateOrder: DateOrder = .mdy

    @Option(help: "List the first N rows of each kind of change, field by field (0: all of them; --format json lists all).")
    var diffLimit: Int = 20

    func validate() throws {
        if diffLimit < 0 { throw ValidationError("--diff-limit must be 0 (all) or more") }
    }

    func apply(to options: inout ImportOptions) throws {
        options.sheet = sheet
        options.dateOrder = dateOrder
        options.diffLimit = diffLimit == 0 ? nil : diffLimit
        if let delimiter {
            switch delimiter {
            case ",", "comma": options.delimiter = UInt8(ascii: ",")
            case ";", "semicolon": options.delimiter = UInt8(ascii: ";")
            case "\t", "\\t", "tab", "TAB": options.delimiter = UInt8(ascii: "\t")
            default: throw ValidationError("--delimiter must be , ; or TAB (got \"\(delimiter)\")")
            }
        }
        guard let encoding = TextEncoding(rawValue: encoding.lowercased()) else {
            throw ValidationError("--encoding must be utf-8 or windows-1252 (got \"\(encoding)\")")
        }
        options.encoding = encoding
    }
}

/// `--campus` or `--ministry`: whose events an iCalendar file holds.
struct EventOwnerOptions: ParsableArguments {
    @Option(help: "For an .ics file: its events belong to this campus's ministries (code); floating times are in its time zone.")
    var campus: String?
    @Option(help: "For an .ics file: its events belong to this ministry (code); floating times are in its campus's time zone.")
    var ministry: String?

    func validate() throws {
        if campus != nil && ministry != nil { throw ValidationError("give --campus or --ministry, not both") }
    }

    func apply(to options: inout ImportOptions) {
        options.eventOwner = campus.map(EventOwner.campus) ?? ministry.map(EventOwner.ministry)
    }
}

/// How `import` and `validate` read their input and report on it, beyond which files it is.
struct LoadOptions: ParsableArguments {
    @OptionGroup var owner: EventOwnerOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var html: ReportOption
    @OptionGroup var fetch: FetchArguments

    func apply(to options: inout ImportOptions) throws {
        options.reportPath = html.report
        owner.apply(to: &options)
        try read.apply(to: &options)
        fetch.apply(to: &options.fetch)
    }
}

/// Which files a load reads and how their headers map: shared by `import` and `validate`.
struct InputOptions: ParsableArguments {
    @Argument(help: "The kind of data (\(Kind.acceptedList)).")
    var kind: Kind?

    @Argument(help: "The CSV file or .xlsx workbook (an .ics file for events), or its https:// URL (a Google Sheets link, a webcal:// feed).")
    var file: String?

    @Option(help: "Load every file named after a kind (campuses.csv or campuses.xlsx, groups.csv, ...) in DIR, in dependency order, in one transaction; every other file is listed as skipped.")
    var dir: String?

    @Option(name: .customLong("sources"), help: ArgumentHelp("Load every source listed in FILE (columns kind, source: a URL or a path; and per source sync, scope, sheet, map, and campus or ministry for a calendar), in dependency order, in one transaction.",
                               valueName: "FILE"))
    var sourcesFile: String?

    @Option(name: .customLong("file"), parsing: .singleValue,
            help: ArgumentHelp("Load FILE as KIND (repeatable; with --dir a relative FILE is in DIR), e.g. --file students='Cru Students - Sheet1.csv'.",
                               valueName: "KIND=FILE"))
    var files: [String] = []

    @Option(name: .customLong("map"), parsing: .singleValue,
            help: ArgumentHelp("Read the column titled TITLE as COLUMN (repeatable, or several separated by commas), e.g. --map 'Group Name=name,Leader Email=leaders'.",
                               valueName: "TITLE=COLUMN"))
    var map: [String] = []

    @Option(name: .customLong("map-file"), parsing: .singleValue,
            help: ArgumentHelp("Read --map mappings from FILE, one TITLE=COLUMN a line (# starts a comment), e.g. a Google Form's questions saved once.",
                               valueName: "FILE"))
    var mapFiles: [String] = []

    @Option(name: .customLong("from"), parsing: .upToNextOption,
            help: ArgumentHelp("Migrate the old Keystone app's MongoDB data: a mongodump folder (.bson) or mongoexport files (.json), e.g. --from keystone dump/keystone.",
                               valueName: "keystone DIR"))
    var legacy: [String] = []

    /// The dump folder of `--from keystone DIR`.
    var keystoneDump: String? { legacy.count == 2 ? legacy[1] : nil }

    func validate() throws {
        if !legacy.isEmpty {
            guard legacy.count == 2, legacy[0] == "keystone" else {
                throw ValidationError("--from takes keystone and the dump's folder: --from keystone DIR")
            }
            if kind != nil || dir != nil || !files.isEmpty || !map.isEmpty || !mapFiles.isEmpty {
                throw ValidationError("--from keystone DIR reads the whole dump; it takes no KIND FILE, --dir, --file or --map")
            }
            return
        }
        if kind != nil && file == nil { throw ValidationError("give the FILE after KIND") }
        if dir == nil && files.isEmpty && kind == nil && sourcesFile == nil {
            throw ValidationError("give KIND and FILE, --dir DIR, --file KIND=FILE or --sources FILE")
        }
        if sourcesFile != nil && (dir != nil || kind != nil) {
            throw ValidationError("--sources lists every source of the load; name others with --file KIND=FILE, not --dir or KIND FILE")
        }
        if dir != nil && kind != nil {
            throw ValidationError("--dir loads a whole folder; name other files with --file KIND=FILE, not KIND FILE")
        }
        _ = try namedFiles()
        _ = try columnMap()
    }

    /// `--sheet` names the sheet of one workbook: refused when the load reads several files.
    func refuseSheet(_ sheet: String?) throws {
        if sheet != nil, try dir != nil || sourcesFile != nil || namedFiles().count > 1 {
            throw ValidationError("--sheet chooses the sheet of one workbook; with --dir or several --file each workbook's first sheet is read")
        }
    }

    /// `--file` values as sources, plus KIND FILE.
    func namedFiles() throws -> [Importer.Source] {
        try files.map { item in
            guard let equals = item.firstIndex(of: "="),
                  let kind = Kind(rawValue: item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ValidationError("--file takes KIND=FILE with KIND one of \(Kind.acceptedList) (got \"\(item)\")")
            }
            return Importer.Source(kind: kind, path: String(item[item.index(after: equals)...]))
        } + (kind.map { [Importer.Source(kind: $0, path: file ?? "")] } ?? [])
    }

    /// `--map` values and `--map-file` lines as column -> title, for the columns of the kinds the
    /// load can read.
    func columnMap() throws -> [String: String] {
        let kinds = dir == nil && sourcesFile == nil ? Set(try namedFiles().map(\.kind)) : Set(Kind.allCases)
        return try Self.columnMap(ColumnMapOption.entries(map) + mapFiles.flatMap(ColumnMapOption.entries(ofFile:)),
                                  kinds: kinds)
    }

    /// Mappings as column -> title, for the columns of `kinds` (and the split of a whole name into
    /// first_name and last_name, for a kind that has both).
    static func columnMap(_ entries: [ColumnMapOption.Entry], kinds: Set<Kind>) throws -> [String: String] {
        let chosen = Kind.allCases.filter(kinds.contains)
        let columns = chosen.flatMap(\.columnNames) + chosen.compactMap(\.wholeNameSplit)
        let map = try ColumnMapOption.parse(entries, field: { word in
            columns.first { TableHeader.normalizedName($0) == TableHeader.normalizedName(word) }
        }, name: { $0 }, fields: Array(Set(columns)).sorted().joined(separator: ", "), example: "'Group Name=name'")
        if let split = chosen.lazy.compactMap(\.wholeNameSplit).first, map[split] != nil,
           let twice = ["first_name", "last_name"].first(where: { map[$0] != nil }) {
            throw ValidationError("--map: \(twice) is mapped twice, on its own and in \(split)")
        }
        return map
    }

    func sources() throws -> Importer.SourceList {
        var listed: [Importer.Source] = []
        if let sourcesFile {
            for entry in try SourcesFile.read(sourcesFile) {
                var source = entry.source
                do {
                    source.columnMap = try entry.map.map { try Self.columnMap(ColumnMapOption.entries([$0]), kinds: [source.kind]) }
                } catch let error as ValidationError {
                    throw CruBatchError.unreadable("\(entry.mapLocation): \(error.message)")
                }
                listed.append(source)
            }
        }
        return try Importer.sources(directory: dir, files: listed + namedFiles())
    }
}

struct ImportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Validate a CSV file, an Excel workbook or an iCalendar file of events, and load it (insert new rows, update changed ones).",
        discussion: """
        KIND is one of: \(Kind.acceptedList). FILE is CSV or an Excel workbook (.xlsx: its first sheet, or --sheet NAME). The file's header names the columns (any order; case, spaces, _ and - are ignored; aliases such as "E-mail" or "Surname" work). Rows are matched on their natural key (code, email or url; event and person for attendance) and the whole load is one transaction: by default nothing is written if any row is bad.

        With --sync the file is the complete list: rows of its scope that it does not list are archived (kept, but left out of exports, placement and notifications), and a row listed again later is restored. A memberships file is the complete membership of each group it names; its missing rows end (status left). A sync that would archive more than 10% of its scope (and more than 5 rows) is refused unless --max-archive allows it; an empty file never archives anything.

        Every new membership queues a "joined" message to each leader of its group (and, with --welcome, a welcome to the student); a membership that ends queues "left". `crubatch notify` sends them. --no-notify records them as suppressed instead, so loading years of existing memberships emails nobody.

        Events can also come from an iCalendar file (.ics: an export of Google Calendar, Outlook or Apple Calendar, or a feed fetched with curl): each VEVENT is matched on its UID, so importing the file again updates the same events; an event the file cancels is archived. --campus or --ministry says whose events they are.

        FILE may be a URL (https://, http://, webcal://), fetched with a 10 s connect timeout, --fetch-timeout for the whole download, --max-bytes, at most 5 redirects and only to http(s). A Google Sheets link copied from the address bar is read as that sheet's CSV export (share it as anyone with the link can view, or publish it). Each URL's ETag, Last-Modified and SHA-256 are remembered: a URL whose content did not change since its last import is reported as unchanged and writes nothing (--force loads it anyway).

        Examples:
          crubatch import groups groups.csv --dry-run         each changed field, old -> new
          crubatch import groups groups.csv --dry-run --report preview.html --rejects fix-me.xlsx
          crubatch import students students.csv --on-error skip --rejects rejects.csv
          crubatch import --dir fixtures/central-coast
          crubatch import --dir exports --file students='Cru Students - Sheet1.csv'
          crubatch import groups "Small Groups.csv" --map 'Group Name=name,Leader Email=leaders'
          crubatch import leaders leaders.csv --encoding windows-1252
          crubatch import students fall-signups.xlsx --sheet "Cal Poly"
          crubatch import groups cuesta-groups.csv --sync --scope campus=cuesta --dry-run
          crubatch import memberships moves.csv --move
          crubatch import memberships fall.csv --welcome      new members get a welcome email too
          crubatch import --dir last-year --no-notify           backfill: nobody is emailed about old joins
          crubatch import events calendar.ics --ministry cru-calpoly
          crubatch import groups 'https://docs.google.com/spreadsheets/d/ID/edit#gid=0'
          crubatch import --sources sources.csv                 every sheet staff keep, in one transaction
          crubatch import --from keystone dump/keystone --dry-run   the old app's MongoDB data

        Exit codes: 0 loaded (or unchanged); 1 rows rejected or sync refused; 65 unreadable file (a web page where a table was expected, a file over --max-bytes); 66 no such file; 69 database or URL's server unavailable; 75 another import of the kind is running.
        """
    )

    @OptionGroup var input: InputOptions

    @Flag(help: "Check everything against the database, report what would change, write nothing.")
    var dryRun = false

    @Option(help: "abort: write nothing if any row is bad; skip: load good rows, reject bad ones (exit 1).")
    var onError: OnErrorChoice = .abort

    @Option(help: "Stop after N errors.")
    var maxErrors: Int?

    @Option(help: "Write rows with their errors to this CSV, or .xlsx workbook with the bad cells marked (a folder for several files): with --on-error abort every row, with skip the rejected ones; fix the cells and import it.")
    var rejects: String?

    @Option(help: "keep: a blank cell leaves the stored value alone; clear: a blank cell erases it.")
    var blank: BlankChoice = .keep

    @Option(name: .customLong("on-duplicate"),
            help: "Students and leaders: warn (a new person who is probably someone known is a possible-duplicate warning) or reject (an error for that row).")
    var onDuplicate: OnDuplicateChoice = .warn

    @Flag(help: "Wait for another import of the same kind to finish instead of exiting 75.")
    var wait = false

    @Flag(help: "Print on stderr where the time went: each phase of the load (reading and checking rows, COPY into staging, the checks, the merge and its parts, statistics, the commit) with its seconds and share.")
    var timings = false

    @Flag(help: "The file is the complete list: archive the rows of its scope it does not list (memberships: end them).")
    var sync = false

    @Option(help: ArgumentHelp("With --sync: only the rows of one campus or ministry (default: the whole kind).",
                               valueName: "campus=CODE|ministry=CODE"))
    var scope: String?

    @Option(help: ArgumentHelp("With --sync: archive at most N rows, or P% of the scope (default: 10% of the scope or 5 rows).",
                               valueName: "N|P%"))
    var maxArchive: String?

    @Flag(help: "Memberships: a student put in a group leaves their other groups of the same ministry.")
    var move = false

    @Flag(name: .customLong("no-notify"),
          help: "Record the load's joins and leaves without telling anyone: their notifications are suppressed, never sent (a backfill).")
    var noNotify = false

    @Flag(help: "Memberships: also email each new member a welcome with the group's meeting and its leaders' contacts.")
    var welcome = false

    @Flag(help: "For a URL: load it even when it is unchanged since its last import.")
    var force = false

    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        try input.refuseSheet(load.read.sheet)
        if input.keystoneDump != nil && (sync || move || welcome) {
            throw ValidationError("--from keystone migrates the whole dump and emails nobody: --sync, --move and --welcome do not apply")
        }
        if let maxErrors, maxErrors < 1 { throw ValidationError("--max-errors must be at least 1") }
        if let rejects, ImportOptions.rejectsAreWorkbook(rejects), try input.dir != nil || input.namedFiles().count > 1 {
            throw ValidationError("--rejects FILE.xlsx holds one file's rows; for several files give a folder (one KIND.csv each)")
        }
        if sync {
            if input.dir != nil || !input.files.isEmpty || input.sourcesFile != nil {
                throw ValidationError("--sync takes one KIND and FILE, not --dir, --file or --sources (whose sync column says it)")
            }
            if onError == .skip { throw ValidationError("--sync needs the complete list: it cannot skip bad rows (--on-error skip)") }
        } else if scope != nil || (maxArchive != nil && input.sourcesFile == nil) {
            throw ValidationError("--scope and --max-archive go with --sync")
        }
        if let scope, SyncScope(argument: scope) == nil {
            throw ValidationError("--scope takes campus=CODE or ministry=CODE (got \"\(scope)\")")
        }
        if let maxArchive, ArchiveLimit(argument: maxArchive) == nil {
            throw ValidationError("--max-archive takes a number of rows or a percentage such as 20% (got \"\(maxArchive)\")")
        }
        if move && (input.kind != .memberships || input.dir != nil || !input.files.isEmpty) {
            throw ValidationError("--move applies to one memberships file: crubatch import memberships FILE --move")
        }
        if welcome && noNotify { throw ValidationError("--welcome sends welcomes, --no-notify sends nothing: give one of them") }
        if welcome, let kind = input.kind, kind != .memberships {
            throw ValidationError("--welcome applies to memberships: crubatch import memberships FILE --welcome")
        }
    }

    var console: Console { output.console("import") }

    func report(to console: Console) throws -> ExitStatus {
        var options = ImportOptions()
        options.dryRun = dryRun
        options.onError = onError.value
        options.maxErrors = maxErrors
        options.rejectsPath = rejects
        options.blank = blank.value
        options.onDuplicate = onDuplicate.value
        options.waitForLock = wait
        options.columnMap = try input.columnMap()
        if sync { options.sync = scope.flatMap(SyncScope.init(argument:)) ?? .everything }
        if let limit = maxArchive.flatMap(ArchiveLimit.init(argument:)) { options.maxArchive = limit }
        options.move = move
        options.messages = JoinMessages(notify: !noNotify, welcome: welcome)
        try load.apply(to: &options)
        options.fetch.force = force
        options.timings = timings ? PhaseTimings() : nil
        return try runLoad(input, options: options, console: console, database: database)
    }
}

struct ValidateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run every check import makes, against the file and the database, and write nothing.",
        discussion: """
        Diagnostics name the file, line and column, e.g.
          groups.csv:14:2: error[unknown-reference]: ministry "epik" does not exist (did you mean "epic"?)
        and in a workbook the sheet and cell:
          students.xlsx:Sheet1!C14: error[invalid-email]: email: not a valid email address

        Exit codes: 0 valid (warnings allowed); 1 invalid rows; 65 unreadable file; 66 no such file; 69 database unavailable.
        """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        try input.refuseSheet(load.read.sheet)
    }

    var console: Console { output.console("validate") }

    func report(to console: Console) throws -> ExitStatus {
        var options = ImportOptions()
        options.validateOnly = true
        options.columnMap = try input.columnMap()
        try load.apply(to: &options)
        return try runLoad(input, options: options, console: console, database: database)
    }
}

/// Loads (or validates) what the input names, an old app's dump or files, and prints the report.
private func runLoad(_ input: InputOptions, options: ImportOptions, console: Console,
                     database: DatabaseOptions) throws -> ExitStatus {
    let outputs = [("--report", options.reportPath), ("--rejects", options.rejectsPath)]
        .compactMap { option, path in path.map { (option: option, path: $0) } }
    if let dump = input.keystoneDump {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: dump))?.map { dump + "/" + $0 } ?? []
        try refuseClashes(outputs, inputs: [dump] + files)
        return try runKeystoneMigration(dump, options: options, console: console, database: database)
    }
    let list = try input.sources()
    try refuseClashes(outputs, inputs: [input.sourcesFile].compactMap { $0 } + list.sources.map(\.path))
    return try runImport(list, options: options, console: console, database: database)
}

/// A usage error when an output would overwrite an input or another output, before anything is read.
private func refuseClashes(_ outputs: [(option: String, path: String)], inputs: [String]) throws {
    if let clash = OutputClash.find(outputs: outputs, inputs: inputs) { throw CruBatchError.usage(clash) }
}

/// Runs an import or validation and prints its report: diagnostics to stderr, summary to stdout
/// (or everything as one JSON document).
private func runImport(_ list: Importer.SourceList, options: ImportOptions, console: Console,
                       database: DatabaseOptions) throws -> ExitStatus {
    let started = ContinuousClock.now
    let connection = try database.connect()
    let progress = ProgressLine()
    let importer = Importer(connection: connection, options: options,
                            progress: progress.isEnabled && !console.quiet ? { progress.show($0) } : nil)
    let report = try importer.run(list.sources, skipped: list.skipped)
    progress.clear()
    return finishImport(report, console: console, timings: options.timings, since: started)
}

/// Migrates the old Keystone app's dump and prints the report as `runImport` does.
private func runKeystoneMigration(_ folder: String, options: ImportOptions, console: Console,
                                  database: DatabaseOptions) throws -> ExitStatus {
    let started = ContinuousClock.now
    let connection = try database.connect()
    let progress = ProgressLine()
    let migration = KeystoneMigration(connection: connection, options: options,
                                      progress: progress.isEnabled && !console.quiet ? { progress.show($0) } : nil)
    let report = try migration.run(dump: folder)
    progress.clear()
    return finishImport(report, console: console, timings: options.timings, since: started)
}

/// Prints an import's diagnostics (text output), its report and, with `--timings`, where the time
/// since `started` went; its exit status.
private func finishImport(_ report: ImportReport, console: Console, timings: PhaseTimings?,
                          since started: ContinuousClock.Instant) -> ExitStatus {
    if !console.json {
        for diagnostic in report.diagnostics { console.warn(diagnostic.rendered) }
    }
    let status = console.finish(report, status: report.exitStatus)
    if let timings { console.warn(timings.table(total: ContinuousClock.now - started)) }
    return status
}

extension Kind: ExpressibleByArgument {}

extension DateOrder: ExpressibleByArgument {}

enum OnErrorChoice: String, ExpressibleByArgument, CaseIterable {
    case abort, skip
    var value: ImportOptions.OnError { self == .abort ? .abort : .skip }
}

enum OnDuplicateChoice: String, ExpressibleByArgument, CaseIterable {
    case warn, reject
    var value: Diagnostic.Severity { self == .warn ? .warning : .error }
}

enum BlankChoice: String, ExpressibleByArgument, CaseIterable {
    case keep, clear
    var value: ImportOptions.Blank { self == .keep ? .keep : .clear }
}
