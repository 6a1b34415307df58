import ArgumentParser
import CruBatch

/// `crubatch rides SUBCOMMAND`: ride sharing for events. Each subcommand is one job on offers,
/// requests and their pairings; a new one is one more entry in `subcommands`.
struct RidesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "Ride sharing for events: cancel ride offers and requests.",
        discussion: """
        Offers and requests are loaded like any kind (`crubatch import ride-offers FILE`, `import ride-requests FILE`) and the cars written with `crubatch export rides --event CODE`, which shows each offer's and request's id.

        Examples:
          crubatch export rides --event fall-retreat-2026
          crubatch rides cancel --offer 12
          crubatch rides cancel --request 31
        """,
        subcommands: [RidesCancelCommand.self])
}

struct RidesCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel one ride offer or one ride request, as importing it with status cancelled would.",
        discussion: """
        Cancelling an offer ends its pairings: its passengers' requests are pending again, waiting for another car. Cancelling a request ends its pairing and frees its seat. The change is recorded as a run: `crubatch runs show RUN` lists it and `crubatch undo RUN` takes it back. An offer or request cancelled already is left as it is (exit 0).

        Examples:
          crubatch rides cancel --offer 12
          crubatch rides cancel --request 31 --format json

        Exit codes: 0 cancelled (or cancelled already); 64 no such offer or request; 69 database unavailable; 75 an import of ride offers or requests is running.
        """)

    @Option(help: ArgumentHelp("The ride offer's id (shown by `crubatch export rides`).", valueName: "id")) var offer: Int?
    @Option(help: ArgumentHelp("The ride request's id (shown by `crubatch export rides`).", valueName: "id")) var request: Int?
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if (offer == nil) == (request == nil) { throw ValidationError("give one of --offer ID or --request ID") }
    }

    func run() throws {
        let console = output.console("rides cancel")
        let target: RideCancellation.Target = offer.map { .offer($0) } ?? .request(request ?? 0)
        try console.run {
            console.finish(try RideCancellation(connection: database.connect()).cancel(target))
        }
    }
}
