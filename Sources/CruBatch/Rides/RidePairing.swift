import Foundation

/// Pairs one event's ride requests with its ride offers (`crubatch rides pair`), leg by leg.
///
/// The rules:
/// - **Seats.** An offer has `seats` seats on each leg it drives (a driver going both ways has that
///   many each way); the kept pairings take theirs first, and no leg is ever filled past its seats.
/// - **Windows.** A passenger rides on a leg only with a driver whose departure for that leg lies in
///   the request's window for it, both ends included, and never in their own car.
/// - **Kept pairings.** Pairings made earlier stay as they are, and the request legs they serve are
///   not paired again: a re-run only adds.
/// - **Optimal.** Each leg is solved exactly (`AssignmentSimplex.priced` over `RideLegEdges`, a
///   min-cost flow), `to` first, then `from`, for, in this order of priority:
///   1. the most request legs served;
///   2. then the most requests riding with the driver they have on the other leg: on `to`, the
///      driver of a kept `from` pairing; on `from`, the `to` driver, kept or chosen just before;
///   3. then the least total pickup distance (`PickupDistance`, in metres).
///
///   The second rule is what gives a request going both ways one driver both ways whenever that
///   costs no one a seat. It counts for more than distance: such a passenger rides back with their
///   driver even when another car starts nearer. The `to` leg is settled before the `from` leg is
///   looked at, so a `to` driver who is nearer but does not come back is still preferred to one who
///   does; the `from` leg then does the best it can with that.
/// - **Deterministic.** Offers and requests are taken in id order whatever order they come in, so
///   the same input gives the same pairings; among equally good pairings, the later requests are
///   the ones left waiting and lower offer ids are taken first (a tie-break worth less than a metre).
/// - **Waiting.** A request leg left without a driver says why (`RideWaitReason`): no driver drives
///   that leg, none departs inside its window, or all that do are full. Because the count is
///   maximal, a waiting passenger's every driver in the window is full.
enum RidePairing {
    static func pair(offers: [RideOffer], requests: [RideRequest], kept: [RidePair]) -> RidePairingResult {
        pair(offers: offers, requests: requests, kept: kept, candidates: candidates)
    }

    /// How many drivers each request's leg is first solved with: its driver on the other leg and the
    /// nearest others in its window. The rest are priced afterwards and added where they would do
    /// better (`AssignmentSimplex.priced`), so the result is the optimum over every driver.
    static let candidates = 16

    static func pair(offers: [RideOffer], requests: [RideRequest], kept: [RidePair],
                     candidates: Int) -> RidePairingResult {
        var legs = RideLegPairing(offers: offers, requests: requests, kept: kept, candidates: candidates)
        while legs.next() != nil {}
        return legs.result
    }
}

/// One event's pairing (`RidePairing`) a leg at a time, `to` then `from`, so that a caller can write
/// one leg's pairings while the next is solved. While a leg's simplex runs (on one core), the next
/// leg's nearest cars are found on another.
struct RideLegPairing {
    private var event: EventPairing
    private var legs = RideLeg.allCases[...]
    private let candidates: Int
    private var assignments: [RideAssignment] = [], waiting: [RideWaiting] = []
    /// The next leg as far as it is set up while this one is solved.
    private var upcoming: BackgroundWork<PreparedLeg>?

    init(offers: [RideOffer], requests: [RideRequest], kept: [RidePair], candidates: Int = RidePairing.candidates) {
        event = EventPairing(offers: offers, requests: requests, kept: kept)
        self.candidates = candidates
    }

    /// Solves the next leg and returns its new pairings; nil once both legs are solved.
    mutating func next() -> [RideAssignment]? {
        guard let leg = legs.popFirst() else { return nil }
        let prepared = upcoming?.value ?? event.prepare(leg, candidates: candidates, knowingPreferences: true)
        // Once this leg's candidates are found, the next leg's nearest cars are found on another
        // core while the simplex (one core) solves this one; their preferred drivers come after.
        var next: BackgroundWork<PreparedLeg>?
        let before = event, candidates = candidates, nextLeg = legs.first
        let decided = event.pair(prepared, candidates: candidates) {
            guard let nextLeg else { return }
            next = BackgroundWork { before.prepare(nextLeg, candidates: candidates, knowingPreferences: false) }
        }
        upcoming = next
        assignments += decided.assignments
        waiting += decided.waiting
        return decided.assignments
    }

    /// The pairings and waiting legs of the legs solved so far.
    var result: RidePairingResult {
        RidePairingResult(
            assignments: assignments,
            waiting: waiting.sorted { $0.requestID != $1.requestID ? $0.requestID < $1.requestID : $0.leg < $1.leg },
            totalMetres: assignments.reduce(0) { $0 + $1.metres })
    }
}

/// One event's offers and requests in id order, and each request's driver on each leg so far.
private struct EventPairing {
    let offers: [RideOffer]
    let requests: [RideRequest]
    /// The pickup points of the requests, then of the offers.
    let distances: PickupDistance.Table
    /// Per leg, request id → offer id: kept pairings, then the ones this run makes.
    var drivers: [RideLeg: [Int64: Int64]] = [.to: [:], .from: [:]]
    /// Per leg, offer id → the seats kept pairings take.
    var taken: [RideLeg: [Int64: Int]] = [.to: [:], .from: [:]]

    init(offers: [RideOffer], requests: [RideRequest], kept: [RidePair]) {
        self.offers = offers.sorted { $0.id < $1.id }
        self.requests = requests.sorted { $0.id < $1.id }
        distances = PickupDistance.Table(self.requests.map(\.pickup) + self.offers.map(\.pickup))
        for pair in kept {
            if drivers[pair.leg]?[pair.requestID] == nil { drivers[pair.leg]?[pair.requestID] = pair.offerID }
            taken[pair.leg]?[pair.offerID, default: 0] += 1
        }
    }

    /// One leg's requests that no kept pairing serves (the rows), its offers (the columns), its
    /// edges and their nearest lists: everything but, when `knowingPreferences` is false, each
    /// request's driver on the other leg. That is when the other leg is being solved, on one core:
    /// this then takes the other one only.
    func prepare(_ leg: RideLeg, candidates: Int, knowingPreferences: Bool) -> PreparedLeg {
        let cores = knowingPreferences ? Concurrently.cores : 1
        let columns = offers.indices.filter { offers[$0].departures[leg] != nil }
        let rows = requests.indices.filter { requests[$0].windows[leg] != nil && drivers[leg]?[requests[$0].id] == nil }
        var edges = RideLegEdges(
            rows: rows.map { (requests[$0].windows[leg]!, requests[$0].passengerID, $0) },
            columns: columns.map { offer in
                (offers[offer].departures[leg]!, offers[offer].seats - (taken[leg]?[offers[offer].id] ?? 0),
                 offers[offer].driverID, requests.count + offer)
            },
            distances: distances, cores: cores)
        if knowingPreferences { edges.prefer(preferredColumns(leg, rows: rows, columns: columns)) }
        return PreparedLeg(leg: leg, rows: rows, columns: columns, edges: edges,
                           lists: edges.nearestLists(count: candidates, knowingPreferences: knowingPreferences, cores: cores))
    }

    /// Per row of a leg, the column of its driver on the other leg, if it has one there.
    private func preferredColumns(_ leg: RideLeg, rows: [Int], columns: [Int]) -> [Int?] {
        let columnOfOffer = Dictionary(uniqueKeysWithValues: columns.enumerated().map { (offers[$1].id, $0) })
        return rows.map { row in drivers[leg.other]?[requests[row].id].flatMap { columnOfOffer[$0] } }
    }

    /// Pairs a prepared leg and records its drivers; `meanwhile` runs once the candidate edges are
    /// found, before the simplex.
    mutating func pair(_ prepared: PreparedLeg, candidates: Int,
                       meanwhile: () -> Void) -> (assignments: [RideAssignment], waiting: [RideWaiting]) {
        let leg = prepared.leg, rows = prepared.rows, columns = prepared.columns
        var edges = prepared.edges
        edges.prefer(preferredColumns(leg, rows: rows, columns: columns))
        let lists = edges.candidateEdges(from: prepared.lists, count: candidates)
        meanwhile()
        var assignments: [RideAssignment] = [], waiting: [RideWaiting] = []
        for (index, column) in AssignmentSimplex.priced(edges, from: lists, candidates: candidates).enumerated() {
            let request = requests[rows[index]]
            if let column {
                let offer = offers[columns[column]]
                assignments.append(RideAssignment(pair: RidePair(requestID: request.id, offerID: offer.id, leg: leg),
                                                  metres: edges.metres(row: index, column: column)))
                drivers[leg]?[request.id] = offer.id
            } else {
                let reason: RideWaitReason = columns.isEmpty ? .noDriverThatWay
                    : edges.hasColumns(index) ? .carsFull : .noDriverInWindow
                waiting.append(RideWaiting(requestID: request.id, leg: leg, reason: reason))
            }
        }
        return (assignments, waiting)
    }
}

/// A leg of an event set up for pairing (`EventPairing.prepare`): its rows (indices of requests),
/// its columns (indices of offers), its edges and their nearest lists.
private struct PreparedLeg: Sendable {
    let leg: RideLeg
    let rows: [Int]
    let columns: [Int]
    let edges: RideLegEdges
    let lists: RideLegEdges.NearestLists
}
