import ArgumentParser
import CruBatch

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a kind (in the format import reads), rosters or calendars.",
        discussion: """
        Examples:
          crubatch export groups --out groups.csv
          crubatch export roster --group cp-mens-tue --out roster.csv
          crubatch export roster --campus calpoly --format json --out roster.json
          crubatch export calendar --ministry epic-calpoly --out epic.ics

        Files are written to a temporary name and renamed, with mode 0600. Exit 73 when the output
        cannot be written.
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

struct ExportKindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kind",
        abstract: "Export one kind as CSV, exactly as import reads it (export -> import changes nothing).")

    @Argument(help: "The kind (\(Kind.acceptedList)).") var kind: Kind
    @Option(help: "Output file (default: standard output).") var out: String?
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try runReportingErrors {
            let exporter = try Exporter(connection: database.connect())
            let file = try exporter.exportKind(kind, to: out.map(ExportDestination.file) ?? .standardOutput)
            if out != nil { printError("wrote \(file.rows) \(kind.rawValue) to \(file.file) (\(file.bytes) bytes)") }
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
    @Option(help: "Output file (default: standard output).") var out: String?
    @OptionGroup var database: DatabaseOptions

    enum RosterFormat: String, ExpressibleByArgument, CaseIterable { case csv, json }

    func run() throws {
        try runReportingErrors {
            let exporter = try Exporter(connection: database.connect())
            try exporter.requireExists(scope.scope)
            let destination = out.map(ExportDestination.file) ?? .standardOutput
            let file = format == .csv ? try exporter.exportRosterCSV(scope.scope, to: destination)
                : try exporter.exportRosterJSON(scope.scope, to: destination)
            if out != nil { printError("wrote \(file.rows) members to \(file.file) (\(file.bytes) bytes)") }
            return .ok
        }
    }
}
