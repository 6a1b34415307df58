import CSVStream
import Foundation

/// What `crubatch rides pair` did: who rides with whom (the new pairings), who still waits and why,
/// and per event the counts; printed as tables, JSON or CSV.
public struct RidesPairReport: Sendable, CommandReport {
    /// A driver or a passenger.
    public struct Person: Sendable, Codable, Equatable {
        public var name: String
        public var email: String
    }

    /// A passenger seated in a car for one leg by this run.
    public struct Pairing: Sendable, Codable, Equatable {
        public var event: String
        public var leg: String
        public var request: Int64
        public var passenger: Person
        public var pickup: String
        public var offer: Int64
        public var driver: Person
        /// When the car leaves on that leg, in the event's zone (`2026-10-16 15:30`).
        public var leaves: String
        /// `PickupDistance.metres` between the passenger's and the car's pickup points.
        public var metres: Int
        /// Whether both points have coordinates, so `metres` is a distance on the map rather than a
        /// judgement from postal codes or place names.
        public var measured: Bool
    }

    /// A request's leg still without a car.
    public struct Waiting: Sendable, Codable, Equatable {
        public var event: String
        public var leg: String
        public var request: Int64
        public var passenger: Person
        public var pickup: String
        /// A `RideWaitReason`: no-driver-that-way, no-driver-in-window, cars-full.
        public var reason: String
    }

    /// One event's counts.
    public struct Event: Sendable, Codable, Equatable {
        public var code: String
        /// Open offers and pending requests.
        public var offers: Int
        public var requests: Int
        /// Active pairings kept from earlier.
        public var kept: Int
        /// Pairings made by this run.
        public var paired: Int
        /// Request legs still waiting.
        public var waiting: Int
    }

    public var events: [Event] = []
    public private(set) var pairings: [Pairing] = []
    public private(set) var waiting: [Waiting] = []
    /// The pairings and waiting legs as text tables (`setTables`), once they are all added.
    private var tables: String?
    /// The run in `import_runs` (kind `rides-pair`), for `crubatch runs show` and `crubatch undo`.
    public var runID: Int?
    public var dryRun = false
    public var seconds = 0.0

    /// What the JSON document holds: everything but the rendered tables.
    private enum CodingKeys: String, CodingKey {
        case events, pairings, waiting, runID, dryRun, seconds
    }

    /// 0 when no request leg waits, 1 when some do.
    public var exitStatus: ExitStatus { waiting.isEmpty ? .ok : .rejected }

    mutating func add(_ result: RidePairingResult, of event: RideShareEvents) {
        tables = nil
        let offers = Dictionary(uniqueKeysWithValues: event.offers.map { ($0.offer.id, $0) })
        let requests = Dictionary(uniqueKeysWithValues: event.requests.map { ($0.request.id, $0) })
        for assignment in result.assignments {
            let pair = assignment.pair
            guard let offer = offers[pair.offerID], let request = requests[pair.requestID] else { continue }
            pairings.append(Pairing(
                event: event.code, leg: pair.leg.rawValue, request: pair.requestID, passenger: request.passenger,
                pickup: request.request.pickup.place, offer: pair.offerID, driver: offer.driver,
                leaves: offer.leaves[pair.leg] ?? "", metres: assignment.metres,
                measured: request.request.pickup.coordinate != nil && offer.offer.pickup.coordinate != nil))
        }
        for wait in result.waiting {
            guard let request = requests[wait.requestID] else { continue }
            waiting.append(Waiting(event: event.code, leg: wait.leg.rawValue, request: wait.requestID,
                                   passenger: request.passenger, pickup: request.request.pickup.place,
                                   reason: wait.reason.rawValue))
        }
        events.append(Event(code: event.code, offers: event.offers.count, requests: event.requests.count,
                            kept: event.kept.count, paired: result.assignments.count, waiting: result.waiting.count))
    }

    // MARK: Text

    /// The pairings, the legs still waiting, a line per event and the verdict.
    public var text: String {
        (tables ?? Self.tables(pairings, waiting)) + (events.map(Self.summary) + [verdict]).joined(separator: "\n")
    }

    /// Renders the tables of pairings and waiting legs now, for `text`: `rides pair` does it while
    /// the server writes the last leg, rather than after.
    mutating func setTables() { tables = Self.tables(pairings, waiting) }

    /// The pairings, then the legs still waiting, as text tables, each followed by a blank line.
    private static func tables(_ pairings: [Pairing], _ waiting: [Waiting]) -> String {
        var lines: [String] = []
        if !pairings.isEmpty {
            var table = TextTable(headers: ["event", "leg", "passenger", "pickup", "driver", "leaves", "distance"],
                                  alignments: [.left, .left, .left, .left, .left, .left, .right])
            for pairing in pairings {
                table.append([pairing.event, pairing.leg, pairing.passenger.name, pairing.pickup, pairing.driver.name,
                              pairing.leaves, Self.distance(pairing)])
            }
            lines += table.lines + [""]
        }
        if !waiting.isEmpty {
            var table = TextTable(headers: ["still waiting", "leg", "passenger", "pickup", "why"],
                                  alignments: Array(repeating: .left, count: 5), freeLastColumn: true)
            for wait in waiting {
                table.append([wait.event, wait.leg, wait.passenger.name, wait.pickup, Self.why(wait.reason)])
            }
            lines += table.lines + [""]
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// `4.2 km` between coordinates; else `same place` or `-` (a guess from codes or names).
    static func distance(_ pairing: Pairing) -> String {
        if pairing.measured { return "\(kilometres(pairing.metres)) km" }
        return pairing.metres == 0 ? "same place" : "-"
    }

    /// Metres as kilometres to one decimal, as `printf("%.1f", metres / 1000.0)` has it (the double
    /// nearest the quotient, rounded half to even), in integer arithmetic: a report prints
    /// thousands of them.
    static func kilometres(_ metres: Int) -> String {
        let (tenths, rest) = metres.quotientAndRemainder(dividingBy: 100)
        var up = rest > 50
        if rest == 50 {
            // Halfway in decimals: the double nearest metres / 1000 lies above it, below it, or on
            // it (then to even).
            let excess = (-Double(metres)).addingProduct(Double(metres) / 1000, 1000)
            up = excess > 0 || (excess == 0 && tenths % 2 == 1)
        }
        let rounded = tenths + (up ? 1 : 0)
        return "\(rounded / 10).\(rounded % 10)"
    }

    static func why(_ reason: String) -> String {
        switch RideWaitReason(rawValue: reason) {
        case .noDriverThatWay: "no driver goes that way"
        case .noDriverInWindow: "no driver leaves in the window"
        case .carsFull: "all cars in the window are full"
        case nil: reason
        }
    }

    /// `fall-retreat-2026: 2 offers, 5 requests; 6 pairings made, 0 kept, 1 leg waiting`.
    static func summary(_ event: Event) -> String {
        "\(event.code): \(plural(event.offers, "offer")), \(plural(event.requests, "request")); "
            + "\(plural(event.paired, "pairing")) made, \(event.kept) kept, \(plural(event.waiting, "leg")) waiting"
    }

    /// One sentence on what happened to the database.
    public var verdict: String {
        let time = String(format: "%.2f", seconds)
        if events.isEmpty { return "no event to pair: none shares rides and is still to come (\(time) s)" }
        let made = plural(pairings.count, "pairing"), waits = plural(waiting.count, "request leg")
        if dryRun { return "dry run (\(time) s), nothing was written; it would make \(made), and \(waits) would wait" }
        return "\(made) made, \(waits) waiting (\(time) s\(runID.map { ", run \($0)" } ?? ""))"
    }

    // MARK: CSV

    /// One row per new pairing and per waiting leg:
    /// `event,leg,request,passenger,email,outcome,offer,driver,driver_email,leaves,metres,reason`
    /// (RFC 4180, CRLF; cells a spreadsheet would run as formulas are neutralised).
    public func csv() -> String {
        let writer = CSVWriter(neutralizeFormulas: true)
        var bytes: [UInt8] = []
        writer.append(["event", "leg", "request", "passenger", "email", "outcome", "offer", "driver", "driver_email",
                       "leaves", "metres", "reason"], to: &bytes)
        for pairing in pairings {
            writer.append([pairing.event, pairing.leg, String(pairing.request), pairing.passenger.name,
                           pairing.passenger.email, "paired", String(pairing.offer), pairing.driver.name, pairing.driver.email, pairing.leaves,
                           String(pairing.metres), ""], to: &bytes)
        }
        for wait in waiting {
            writer.append([wait.event, wait.leg, String(wait.request), wait.passenger.name, wait.passenger.email,
                           "waiting", "", "", "", "", "", wait.reason], to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
