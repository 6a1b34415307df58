import ArgumentParser
import CruBatch
import FileOutput

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a kind (in the format import reads), rosters or calendars.",
        discussion: """
        Without --out, or with --out -, the export goes to standard output. With --out FILE it is written to a temporary name beside the file (beside the file a symbolic link points to) and renamed over it, with mode 0600 (rosters hold personal data); a device, a named pipe or a socket is written through, never replaced. Exit 73 when the output cannot be written, 65 when the data cannot be exported (a time zone that is not a tz database name).

        Examples:
          crubatch export groups --out groups.csv
          crubatch export groups --format json
          crubatch export roster --group cp-mens-tue --out roster.csv
          crubatch export roster --campus calpoly --format json --out roster.json
          crubatch export calendar --ministry epic-calpoly --out epic.ics
        """,
        subcommands: [ExportKindCommand.self, ExportRosterCommand.self, ExportCalendarCommand.self],
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

    /// What `--out` names now, and so how it is written.
    func target() throws -> OutputTarget { try OutputTarget(out) }

    /// The console of an export: JSON errors when the data itself is JSON.
    func console(json: Bool) -> Console { Console(command: "export", quiet: quiet, json: json) }

    /// Says what was written to a file (stdout needs no such line: it is the output).
    func noteWritten(_ file: ExportedFile, _ what: String) {
        if file.file != OutputTarget.standardOutput.path && !quiet { printError("wrote \(file.rows) \(what) to \(file.file) (\(file.bytes) bytes)") }
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
        let console = output.console(json: format == .json)
        try console.run {
            let exporter = try Exporter(connection: database.connect())
            let target = try output.target()
            let file = format == .csv ? try exporter.exportKind(kind, to: target) : try exporter.exportKindJSON(kind, to: target)
            output.noteWritten(file, kind.rawValue)
            return .ok
        }
    }
}

struct ExportRosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster",
        abstract: "Export group rosters: one row per member with the group and its leaders' contacts.")

    @OptionGroup var scope: ScopeOptions
    @Option(help: "csv or json.") var format: RosterFormat = .csv
    @OptionGroup var output: ExportOutputOptions
    @OptionGroup var database: DatabaseOptions

    enum RosterFormat: String, ExpressibleByArgument, CaseIterable { case csv, json }

    func run() throws {
        let console = output.console(json: format == .json)
        try console.run {
            let exporter = try Exporter(connection: database.connect())
            try exporter.requireExists(scope.scope)
            let target = try output.target()
            let file = format == .csv ? try exporter.exportRosterCSV(scope.scope, to: target)
                : try exporter.exportRosterJSON(scope.scope, to: target)
            output.noteWritten(file, "members")
            return .ok
        }
    }
}
