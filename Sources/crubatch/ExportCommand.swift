import ArgumentParser
import CruBatch
import FileOutput
import Foundation

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a kind (in the format import reads), rosters, calendars or an event's cars.",
        discussion: """
        Without --out, or with --out -, the export goes to standard output. With --out FILE it is written to a temporary name beside the file (beside the file a symbolic link points to) and renamed over it, with mode 0600 (rosters hold personal data); a device, a named pipe or a socket is written through, never replaced. Exit 73 when the output cannot be written, 65 when the data cannot be exported (a time zone that is not a tz database name).

        Examples:
          crubatch export groups --out groups.csv
          crubatch export groups --format json
          crubatch export roster --group cp-mens-tue --out roster.csv
          crubatch export roster --ministry epic-calpoly --format xlsx --out epic.xlsx
          crubatch export roster --for machines --out roster-flat.csv
          crubatch export roster --campus calpoly --format json --out roster.json
          crubatch export calendar --ministry epic-calpoly --out epic.ics
          crubatch export calendar --campus calpoly --terms --out calpoly-terms.ics
          crubatch export rides --event fall-retreat-2026 --out retreat-rides.csv
          crubatch export attendance --campus calpoly --term fall-2026 --min 3
        """,
        subcommands: [ExportKindCommand.self, ExportRosterCommand.self, ExportCalendarCommand.self, ExportRidesCommand.self,
                      ExportAttendanceCommand.self],
        defaultSubcommand: ExportKindCommand.self
    )
}

/// `--group`, `--ministry` or `--campus`: at most one.
struct ScopeOptions: ParsableArguments {
    @Option(help: "Only this community group (code).") var group: String?
    @Option(help: "Only this ministry's groups (code).") var ministry: String?
    @Option(help: "Only this campus's groups (code).") var campus: String?

    func validate() throws {
        if [group, ministry, campus].compactMap({ $0 }).count > 1 {
            throw ValidationError("give at most one of --group, --ministry, --campus")
        }
    }

    var scope: ExportScope {
        if let group { return .group(group) }
        if let ministry { return .ministry(ministry) }
        if let campus { return .campus(campus) }
        return .everything
    }
}

/// `--out` and `--quiet`, shared by the export commands.
struct ExportOutputOptions: ParsableArguments {
    @Option(help: "Output file (- or none: standard output).") var out = "-"
    @Flag(name: [.short, .long], help: "Print nothing when the export succeeds (no \"wrote ...\" line).") var quiet = false
    @OptionGroup var readOnly: ReadOnlyDatabaseOptions

    /// What `--out` names now, and so how it is written.
    func target() throws -> OutputTarget { try OutputTarget(out) }

    /// Runs one export: connects, checks that the scope exists, writes to `--out` with `export`,
    /// and says what was written to a file (stdout needs no such line: it is the output). Errors are
    /// JSON objects when the data itself is JSON.
    func run(_ what: String, json: Bool, scope: ExportScope = .everything, database: DatabaseOptions,
             _ export: (Exporter, OutputTarget) throws -> ExportedFile) throws {
        try Console(command: "export", quiet: quiet, json: json).run {
            let connection = try readOnly.connect() ?? database.connect()
            // One snapshot: every query of the export sees the same data, on a standby too.
            try connection.execute("begin isolation level repeatable read read only")
            defer { try? connection.execute("commit") }
            let exporter = try Exporter(connection: connection)
            try exporter.requireExists(scope)
            let file = try export(exporter, try target())
            if file.file != OutputTarget.standardOutput.path && !quiet {
                printError("wrote \(file.rows) \(what) to \(file.file) (\(file.bytes) bytes)")
            }
            // Rows the file cannot hold are left out, named, and make the exit 1: the rest is written.
            for row in file.leftOut ?? [] {
                printError("crubatch: left \(row.label) out: \(row.reason)\n  hint: \(LeftOutRow.hint)")
            }
            return file.leftOut == nil ? .ok : .rejected
        }
    }
}

struct ExportKindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kind",
        abstract: "Export one kind as CSV, exactly as import reads it (export -> import changes nothing), or as JSON.")

    @Argument(help: "The kind (\(Kind.acceptedList)).") var kind: Kind
    @Option(help: "csv (the import format) or json (one document: {\"format\": 1, \"kind\": ..., \"rows\": [...]}).")
    var format: KindFormat = .csv
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum KindFormat: String, ExpressibleByArgument, CaseIterable { case csv, json }

    func run() throws {
        try output.run(kind.rawValue, json: format == .json, database: database) { exporter, target in
            format == .csv ? try exporter.exportKind(kind, to: target) : try exporter.exportKindJSON(kind, to: target)
        }
    }
}

struct ExportRosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster",
        abstract: "Export group rosters: each group with its meeting and its leaders' contacts, and its members.",
        discussion: """
        --format csv (the default) is for people unless --for machines: per group a block (Group, Ministry, Meets, a Leader line each), then the members under the headers First name, Last name, Email, Phone, Year, Joined; US phones as (805) 555-0203, years as words, UTF-8 with a BOM. --for machines writes one flat row per member (group_code, ..., joined_at), the columns scripts join on. --format xlsx writes a workbook with a sheet per group (to --out, or to standard output when it is not a terminal). --format json is one document for scripts.
        """)

    @OptionGroup var scope: ScopeOptions
    @Option(help: "csv, json or xlsx.") var format: RosterFormat = .csv
    @Option(name: .customLong("for"), help: "Who reads a CSV roster: people (the default) or machines (one flat row per member).")
    var audience: RosterAudience?
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum RosterFormat: String, ExpressibleByArgument, CaseIterable { case csv, json, xlsx }

    func validate() throws {
        if audience != nil && format != .csv {
            throw ValidationError("--for applies to CSV rosters (a workbook is for people, JSON for scripts)")
        }
        if format == .xlsx && (try? output.target()) == .standardOutput && isatty(STDOUT_FILENO) != 0 {
            throw ValidationError("an .xlsx roster is a binary file: give --out FILE.xlsx or redirect standard output")
        }
    }

    func run() throws {
        try output.run("members", json: format == .json, scope: scope.scope, database: database) { exporter, target in
            switch (format, audience ?? .people) {
            case (.csv, .people): try exporter.exportPeopleRosterCSV(scope.scope, to: target)
            case (.csv, .machines): try exporter.exportRosterCSV(scope.scope, to: target)
            case (.json, _): try exporter.exportRosterJSON(scope.scope, to: target)
            case (.xlsx, _): try exporter.exportRosterWorkbook(scope.scope, to: target)
            }
        }
    }
}

extension RosterAudience: ExpressibleByArgument {}

struct ExportRidesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "Export an event's cars: each open ride offer with its driver, departure, pickup and seats, then its passengers.",
        discussion: """
        --format csv (the default) is for people: the event's block (Event, Starts, Location, Ride sharing), then per car a block (Offer id, Driver with email and phone, Goes, Leaves for the event, Leaves the event, Pickup, Seats) over its passengers (Request id, First name, Last name, Phone, Rides, Pickup), each block followed by an empty line; US phones as (805) 555-0203, times in the event's time zone, UTF-8 with a BOM. --format json is one document for scripts. Cancelled offers and ended pairings are left out; `nightly` writes the file of every upcoming event that shares rides.

        Examples:
          crubatch export rides --event fall-retreat-2026 --out retreat-rides.csv
          crubatch export rides --event fall-retreat-2026 --format json
        """)

    @Option(help: "The event (code).") var event: String
    @Option(help: "csv or json.") var format: RidesFormat = .csv
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum RidesFormat: String, ExpressibleByArgument, CaseIterable { case csv, json }

    func run() throws {
        try output.run("cars", json: format == .json, database: database) { exporter, target in
            format == .csv ? try exporter.exportRidesCSV(event: event, to: target) : try exporter.exportRidesJSON(event: event, to: target)
        }
    }
}

struct ExportAttendanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendance",
        abstract: "Export attendance: as import reads it, stamps per person of a campus, or one event's list.",
        discussion: """
        Without --campus or --event: the attendance kind, exactly as import reads it. With --campus: one row per person who came to an event of the campus's ministries (within --term, when given) with their stamps (how many events) and the events' codes in date order, most stamps first; --min N keeps those with at least N (the rewards list). With --event: who came, in the order they checked in, and whether they signed in on the sheet without an email (walk_in). A walk-in's email is empty: the phone is how to reach them.

        Examples:
          crubatch export attendance --out attendance.csv
          crubatch export attendance --campus calpoly --term fall-2026 --out passports.csv
          crubatch export attendance --campus calpoly --min 3
          crubatch export attendance --event fall-retreat-2026 --format json
        """)

    @Option(help: "Stamps per person at this campus's events (code).") var campus: String?
    @Option(help: "With --campus: only events that start within this term of the campus (code).") var term: String?
    @Option(help: "With --campus: only people with at least this many stamps.") var min: Int?
    @Option(help: "Who came to this event (code).") var event: String?
    @Option(help: "csv or json (one document: {\"format\": 1, \"kind\": \"attendance\", \"rows\": [...]}).")
    var format: ExportKindCommand.KindFormat = .csv
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if campus != nil && event != nil { throw ValidationError("give --campus or --event, not both") }
        if campus == nil && (term != nil || min != nil) { throw ValidationError("--term and --min go with --campus") }
        if let min, min < 1 { throw ValidationError("--min takes a number of stamps of at least 1 (got \(min))") }
    }

    func run() throws {
        let listing: AttendanceListing? = campus.map { .stamps(campus: $0, term: term, minimum: min ?? 1) }
            ?? event.map { .event($0) }
        let json = format == .json
        try output.run(listing == nil ? "check-ins" : "people", json: json, database: database) { exporter, target in
            if let listing { return try exporter.exportAttendance(listing, json: json, to: target) }
            return json ? try exporter.exportKindJSON(.attendance, to: target) : try exporter.exportKind(.attendance, to: target)
        }
    }
}
