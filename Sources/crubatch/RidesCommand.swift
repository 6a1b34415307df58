import ArgumentParser
import CruBatch

/// `crubatch rides SUBCOMMAND`: ride sharing for events. Each subcommand is one job on offers,
/// requests and their pairings; a new one is one more entry in `subcommands`.
struct RidesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "Ride sharing for events: pair ride requests with offers, cancel offers and requests.",
        discussion: """
        Offers and requests are loaded like any kind (`crubatch import ride-offers FILE`, `import ride-requests FILE`) and the cars written with `crubatch export rides --event CODE`, which shows each offer's and request's id.

        Examples:
          crubatch rides pair --dry-run
          crubatch export rides --event fall-retreat-2026
          crubatch rides cancel --offer 12
          crubatch rides cancel --request 31
        """,
        subcommands: [RidesPairCommand.self, RidesCancelCommand.self])
}

struct RidesPairCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Seat waiting ride requests in the open offers of events that share rides.",
        discussion: """
        Each event that shares rides and is still to come (or only --event CODE) is paired leg by leg, to the event first, then back. A passenger rides only with a driver who leaves inside the request's window (earliest_departure to latest_departure: for the way there, or for the way back when the request is back only), and no car takes more passengers on a leg than its seats. Pairings made earlier stay: a run only adds, so running it again after new offers or requests is safe.

        The pairing is optimal, not first come first served: first the most passengers seated; then as many as possible riding back with the driver who takes them there; then the least total pickup distance (kilometres between coordinates when both have them, else postal codes, then the place as typed). Ties go to the lower offer and request ids, so the same data always pairs the same way.

        The report lists who rides with whom, and each request leg still waiting with why: no driver goes that way, no driver leaves in its window, or all cars in the window are full. `crubatch notify` then tells each passenger and their driver of each other (ride-paired), and each driver whose car a leg fills (ride-full); --no-notify records those messages as suppressed, never sent. The run is recorded: `crubatch runs show RUN` lists it and `crubatch undo RUN` takes its pairings back.

        Examples:
          crubatch rides pair --dry-run
          crubatch rides pair --event fall-retreat-2026
          crubatch rides pair --format csv > pairings.csv
          crubatch export rides --event fall-retreat-2026     then the cars

        Exit codes: 0 every request leg has a car; 1 some still wait; 64 unknown event, or one that shares no rides; 69 database unavailable; 75 another rides pair, rides cancel or ride import is running.
        """)

    @Option(help: ArgumentHelp("Pair only this event (its code), even one that has passed.", valueName: "code"))
    var event: String?

    @Flag(help: "Pair in a transaction, report, and roll back: write nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-notify"),
          help: "Tell nobody: the messages the new pairings queue are recorded as suppressed, never sent.")
    var noNotify = false

    @Option(help: "text (tables), json (one document) or csv (one row per pairing and per waiting leg).")
    var format: PairFormat = .text

    @Flag(name: [.short, .long], help: "Print nothing when every request leg has a car. Errors still go to stderr.")
    var quiet = false

    @OptionGroup var html: ReportOption
    @OptionGroup var database: DatabaseOptions

    enum PairFormat: String, ExpressibleByArgument, CaseIterable { case text, json, csv }

    var console: Console { Console(command: "rides pair", quiet: quiet, json: format == .json) }

    func report(to console: Console) throws -> ExitStatus {
        var options = RidesPairOptions()
        options.event = event
        options.dryRun = dryRun
        options.messages = JoinMessages(notify: !noNotify)
        let report = try RidesPairRun(options: options).run(connection: database.connect())
        if let target = html.report { try HTMLReport.write(report, to: target) }
        guard format == .csv else { return console.finish(report, status: report.exitStatus) }
        return console.finish(csv: report.csv(), status: report.exitStatus)
    }
}

struct RidesCancelCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel one ride offer or one ride request, as importing it with status cancelled would.",
        discussion: """
        Cancelling an offer ends its pairings: its passengers' requests are pending again, waiting for another car, and `crubatch notify` tells each passenger (ride-cancelled). Cancelling a request ends its pairings and frees their seats, and notify tells the driver (seat-freed). Someone who had not yet been told of a pairing hears nothing of its end. The change is recorded as a run: `crubatch runs show RUN` lists it and `crubatch undo RUN` takes it back. An offer or request cancelled already is left as it is (exit 0).

        Examples:
          crubatch rides cancel --offer 12
          crubatch rides cancel --request 31 --format json
          crubatch rides cancel --offer 12 --no-notify   told already: no messages

        Exit codes: 0 cancelled (or cancelled already); 64 no such offer or request; 69 database unavailable; 75 an import of ride offers or requests is running.
        """)

    @Option(help: ArgumentHelp("The ride offer's id (shown by `crubatch export rides`).", valueName: "id")) var offer: Int?
    @Option(help: ArgumentHelp("The ride request's id (shown by `crubatch export rides`).", valueName: "id")) var request: Int?
    @Flag(name: .customLong("no-notify"),
          help: "Tell nobody: the messages the cancellation queues are recorded as suppressed, never sent.")
    var noNotify = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if (offer == nil) == (request == nil) { throw ValidationError("give one of --offer ID or --request ID") }
    }

    var console: Console { output.console("rides cancel") }

    func report(to console: Console) throws -> ExitStatus {
        let target: RideCancellation.Target = offer.map { .offer($0) } ?? .request(request ?? 0)
        return console.finish(try RideCancellation(connection: database.connect())
            .cancel(target, messages: JoinMessages(notify: !noNotify)))
    }
}
