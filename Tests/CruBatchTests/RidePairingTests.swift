@testable import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

// MARK: - Instances

/// Event time: minutes after 2026-10-03 17:00 UTC.
private func at(_ minutes: Int) -> Date { Date(timeIntervalSince1970: 1_790_960_400 + Double(minutes * 60)) }

private func window(_ from: Int, _ to: Int) -> ClosedRange<Date> { at(from)...at(to) }

private func offer(_ id: Int64, to: Int? = nil, from: Int? = nil, seats: Int, _ place: String = "Yosemite Hall",
                   _ coordinate: Coordinate? = nil) -> RideOffer {
    var departures: [RideLeg: Date] = [:]
    departures[.to] = to.map(at)
    departures[.from] = from.map(at)
    return RideOffer(id: id, departures: departures, seats: seats,
                     pickup: PickupPoint(place: place, coordinate: coordinate))
}

private func request(_ id: Int64, to: ClosedRange<Date>? = nil, from: ClosedRange<Date>? = nil,
                     _ place: String = "Yosemite Hall", _ coordinate: Coordinate? = nil) -> RideRequest {
    var windows: [RideLeg: ClosedRange<Date>] = [:]
    windows[.to] = to
    windows[.from] = from
    return RideRequest(id: id, windows: windows, pickup: PickupPoint(place: place, coordinate: coordinate))
}

/// SplitMix64: a small generator of our own, so the random instances are the same on every machine.
private struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
}

/// One event's offers, requests and earlier pairings.
private struct RideInstance {
    var offers: [RideOffer]
    var requests: [RideRequest]
    var kept: [RidePair]

    /// `to` departures in the first two hours, `from` departures from five hours on, in quarter hours;
    /// places as coordinates around San Luis Obispo, postal codes, or typed names (with case and
    /// spacing variants); about one request in five already paired on one leg, as a re-run finds it.
    static func random(_ random: inout SplitMix64, offers offerCount: Int, requests requestCount: Int) -> RideInstance {
        func point() -> PickupPoint {
            let place = random.pick(["Yosemite Hall", " yosemite  HALL", "Poly Canyon", "Library", ""])
            switch random.int(0...3) {
            case 0, 1:
                return PickupPoint(place: place, coordinate: Coordinate(latitude: 35.2 + random.unit() * 0.2,
                                                                        longitude: -120.75 + random.unit() * 0.2),
                                   postalCode: random.int(0...1) == 0 ? "93405" : nil)
            case 2:
                let codes = ["93405", "934 07", "93410", "93101", "K1A 0B1"]
                return PickupPoint(place: place, postalCode: random.pick(codes))
            default: return PickupPoint(place: place)
            }
        }
        func legs() -> [RideLeg] { random.pick([[.to], [.from], [.to, .from], [.to, .from]]) }
        var offers: [RideOffer] = []
        for id in 1...offerCount {
            var departures: [RideLeg: Date] = [:]
            for leg in legs() { departures[leg] = at((leg == .to ? 0 : 300) + 15 * random.int(0...8)) }
            offers.append(RideOffer(id: Int64(id * 10), departures: departures, seats: random.int(0...4),
                                    pickup: point()))
        }
        var requests: [RideRequest] = []
        for id in 1...requestCount {
            var windows: [RideLeg: ClosedRange<Date>] = [:]
            for leg in legs() {
                let start = (leg == .to ? 0 : 300) + 15 * random.int(-1...8)
                windows[leg] = window(start, start + 15 * random.int(0...6))
            }
            requests.append(RideRequest(id: Int64(id * 7), windows: windows, pickup: point()))
        }
        var kept: [RidePair] = []
        var taken: [RideLeg: [Int64: Int]] = [:]
        for request in requests where random.int(0...4) == 0 {
            let leg = random.pick(request.windows.keys.sorted())
            let fits = offers.filter {
                $0.departures[leg].map(request.windows[leg]!.contains) == true && taken[leg]?[$0.id] ?? 0 < $0.seats
            }
            guard !fits.isEmpty else { continue }
            let offer = random.pick(fits)
            kept.append(RidePair(requestID: request.id, offerID: offer.id, leg: leg))
            taken[leg, default: [:]][offer.id, default: 0] += 1
        }
        return RideInstance(offers: offers, requests: requests, kept: kept)
    }

    func pair() -> RidePairingResult { RidePairing.pair(offers: offers, requests: requests, kept: kept) }

    /// First-fit, as a hand would do it: each request in id order takes the first driver in id order
    /// that departs in its window and has a seat left. Written here only to show what the solver does better.
    func greedyServed() -> Int {
        var served = 0
        var taken: [RideLeg: [Int64: Int]] = [:]
        for pair in kept { taken[pair.leg, default: [:]][pair.offerID, default: 0] += 1 }
        for leg in RideLeg.allCases {
            for request in requests.sorted(by: { $0.id < $1.id }) {
                guard let window = request.windows[leg],
                      !kept.contains(where: { $0.requestID == request.id && $0.leg == leg }) else { continue }
                if let offer = offers.sorted(by: { $0.id < $1.id }).first(where: {
                    $0.departures[leg].map(window.contains) == true && taken[leg]?[$0.id] ?? 0 < $0.seats
                }) {
                    taken[leg, default: [:]][offer.id, default: 0] += 1
                    served += 1
                }
            }
        }
        return served
    }

    /// Per leg: new pairings, how many of them ride with the driver the request has on the other leg
    /// (on `to`, kept pairings only: `from` is paired after it), their metres.
    func measure(_ result: RidePairingResult) -> [[Int]] {
        RideLeg.allCases.map { leg in
            let new = result.assignments.filter { $0.pair.leg == leg }
            let other = (kept + (leg == .from ? result.assignments.map(\.pair) : [])).filter { $0.leg == leg.other }
            let same = new.filter { assignment in
                other.contains { $0.requestID == assignment.pair.requestID && $0.offerID == assignment.pair.offerID }
            }
            return [new.count, same.count, new.reduce(0) { $0 + $1.metres }]
        }
    }

    /// Every rule of a pairing, checked without the solver: windows, legs, seats, kept legs not paired
    /// again, each leg once, distances, and each waiting leg's reason. Returns the problems found.
    func violations(of result: RidePairingResult) -> [String] {
        var problems: [String] = []
        let offersByID = Dictionary(uniqueKeysWithValues: offers.map { ($0.id, $0) })
        let requestsByID = Dictionary(uniqueKeysWithValues: requests.map { ($0.id, $0) })
        var load: [RideLeg: [Int64: Int]] = [:]
        for pair in kept { load[pair.leg, default: [:]][pair.offerID, default: 0] += 1 }
        var servedLegs = Set(kept.map { "\($0.requestID)/\($0.leg)" })
        for assignment in result.assignments {
            let pair = assignment.pair
            guard let offer = offersByID[pair.offerID], let request = requestsByID[pair.requestID] else {
                problems.append("unknown ids in \(pair)")
                continue
            }
            if !servedLegs.insert("\(pair.requestID)/\(pair.leg)").inserted {
                problems.append("leg paired twice: \(pair)")
            }
            guard let departure = offer.departures[pair.leg], let window = request.windows[pair.leg] else {
                problems.append("leg not offered or not asked: \(pair)")
                continue
            }
            if !window.contains(departure) { problems.append("departure outside the window: \(pair)") }
            if assignment.metres != PickupDistance.metres(request.pickup, offer.pickup) {
                problems.append("distance of \(pair)")
            }
            load[pair.leg, default: [:]][pair.offerID, default: 0] += 1
        }
        for leg in RideLeg.allCases {
            for offer in offers where (load[leg]?[offer.id] ?? 0) > offer.seats {
                problems.append("over seats: \(offer.id) \(leg)")
            }
        }
        var expectedWaiting: [RideWaiting] = []
        for request in requests.sorted(by: { $0.id < $1.id }) {
            for leg in RideLeg.allCases {
                guard let window = request.windows[leg], !servedLegs.contains("\(request.id)/\(leg)") else { continue }
                let thatWay = offers.filter { $0.departures[leg] != nil }
                let inWindow = thatWay.filter { window.contains($0.departures[leg]!) }
                let reason: RideWaitReason = thatWay.isEmpty ? .noDriverThatWay
                    : inWindow.isEmpty ? .noDriverInWindow : .carsFull
                if reason == .carsFull, inWindow.contains(where: { (load[leg]?[$0.id] ?? 0) < $0.seats }) {
                    problems.append("request \(request.id) waits on \(leg) beside a free seat")
                }
                expectedWaiting.append(RideWaiting(requestID: request.id, leg: leg, reason: reason))
            }
        }
        if expectedWaiting != result.waiting {
            problems.append("waiting \(result.waiting), expected \(expectedWaiting)")
        }
        if result.totalMetres != result.assignments.reduce(0, { $0 + $1.metres }) { problems.append("total metres") }
        return problems
    }
}

// MARK: - The oracle

/// networkx's `max_flow_min_cost` (network simplex), given each instance's raw offers, requests, kept
/// pairings and the metres between every request and offer, computes for each leg the most passengers
/// served, then the most riding with their driver of the other leg, then the least distance, exactly
/// as the solver's rules say. For the `from` leg it takes the solver's `to` pairings as the drivers
/// to prefer (the `to` leg itself is checked first). Prints, per instance and leg, [served, same, metres].
private enum RidePairingOracle {
    static let script = #"""
        import json, sys
        try:
            import networkx as nx
        except ImportError:
            print("MISSING|python3-networkx"); sys.exit(3)
        answers = []
        for instance in json.load(sys.stdin):
            offers, requests, metres = instance["offers"], instance["requests"], instance["metres"]
            kept = {(k["request"], k["leg"]): k["offer"] for k in instance["kept"]}
            answer = []
            for leg, other in (("to", "from"), ("from", "to")):
                drivers = {r: o for (r, l), o in kept.items() if l == other}
                if leg == "from":
                    drivers.update({r: o for r, o in instance["to"]})
                taken = {}
                for (r, l), o in kept.items():
                    if l == leg:
                        taken[o] = taken.get(o, 0) + 1
                penalty = 1 + sum(sum(row) for row in metres)
                graph = nx.DiGraph()
                graph.add_node("s")
                graph.add_node("t")
                for j, offer in enumerate(offers):
                    if leg in offer["departures"]:
                        seats = max(0, offer["seats"] - taken.get(offer["id"], 0))
                        graph.add_edge(("o", j), "t", capacity=seats, weight=0)
                for i, request in enumerate(requests):
                    if leg not in request["windows"] or (request["id"], leg) in kept:
                        continue
                    earliest, latest = request["windows"][leg]
                    graph.add_edge("s", ("r", i), capacity=1, weight=0)
                    for j, offer in enumerate(offers):
                        departure = offer["departures"].get(leg)
                        if departure is not None and earliest <= departure <= latest:
                            same = drivers.get(request["id"]) == offer["id"]
                            weight = metres[i][j] + (0 if same else penalty)
                            graph.add_edge(("r", i), ("o", j), capacity=1, weight=weight)
                flow = nx.max_flow_min_cost(graph, "s", "t")
                served = same = total = 0
                for i, request in enumerate(requests):
                    for node, units in flow.get(("r", i), {}).items():
                        if units:
                            j = node[1]
                            served += 1
                            total += metres[i][j]
                            same += drivers.get(request["id"]) == offers[j]["id"]
                answer.append([served, same, total])
            answers.append(answer)
        print(json.dumps(answers))
        """#

    struct Offer: Encodable { var id: Int64, seats: Int, departures: [String: Int] }
    struct Request: Encodable { var id: Int64, windows: [String: [Int]] }
    struct Kept: Encodable { var request: Int64, offer: Int64, leg: String }
    struct Instance: Encodable {
        var offers: [Offer], requests: [Request], kept: [Kept], metres: [[Int]], to: [[Int64]]
    }

    /// One Python run for all the instances; the solver's results give the `to` drivers the `from` leg prefers.
    static func solve(_ instances: [RideInstance], results: [RidePairingResult]) throws -> [[[Int]]] {
        func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970) }
        let input = zip(instances, results).map { instance, result in
            Instance(
                offers: instance.offers.map { offer in
                    let departures = offer.departures.map { ($0.key.rawValue, seconds($0.value)) }
                    return Offer(id: offer.id, seats: offer.seats,
                                 departures: Dictionary(uniqueKeysWithValues: departures))
                },
                requests: instance.requests.map { request in
                    Request(id: request.id, windows: Dictionary(uniqueKeysWithValues: request.windows.map {
                        ($0.key.rawValue, [seconds($0.value.lowerBound), seconds($0.value.upperBound)])
                    }))
                },
                kept: instance.kept.map { Kept(request: $0.requestID, offer: $0.offerID, leg: $0.leg.rawValue) },
                metres: instance.requests.map { request in
                    instance.offers.map { PickupDistance.metres(request.pickup, $0.pickup) }
                },
                to: result.assignments.filter { $0.pair.leg == .to }.map { [$0.pair.requestID, $0.pair.offerID] })
        }
        let output = try Python.run(script: script, input: try JSONEncoder().encode(input))
        return try JSONDecoder().decode([[[Int]]].self, from: Data(output.utf8))
    }
}

// MARK: - Tests

@Suite("rides pair: the solver")
struct RidePairingTests {
    @Test("pickup distance: great circle between coordinates, then postal codes, then the place as typed")
    func distances() {
        func metres(_ a: PickupPoint, _ b: PickupPoint) -> Int { PickupDistance.metres(a, b) }
        // One degree of a meridian, and a quarter of the equator, on the mean sphere.
        #expect(metres(PickupPoint(place: "a", coordinate: Coordinate(latitude: 0, longitude: 0)),
                       PickupPoint(place: "b", coordinate: Coordinate(latitude: 1, longitude: 0))) == 111_195)
        #expect(metres(PickupPoint(place: "", coordinate: Coordinate(latitude: 0, longitude: 10)),
                       PickupPoint(place: "", coordinate: Coordinate(latitude: 0, longitude: 100))) == 10_007_557)
        // Coordinates win over postal codes and places.
        let library = Coordinate(latitude: 35.3, longitude: -120.66)
        #expect(metres(PickupPoint(place: "Library", coordinate: library, postalCode: "93407"),
                       PickupPoint(place: "Library", coordinate: library, postalCode: "10001")) == 0)
        // Postal codes when one side has no coordinates: same code, nearby, other; then places.
        let coded = PickupPoint(place: "Yosemite Hall", coordinate: library, postalCode: "k1a 0b1")
        #expect(metres(coded, PickupPoint(place: "Elsewhere", postalCode: "K1A-0B1")) == 0)
        #expect(metres(coded, PickupPoint(place: "Library", postalCode: "K1A 9Z9")) == PickupDistance.nearbyPostalCode)
        #expect(metres(coded, PickupPoint(place: "Library", postalCode: "K2P 1L4")) == PickupDistance.otherPostalCode)
        #expect(metres(coded, PickupPoint(place: "  yosemite   HALL ")) == 0)
        #expect(metres(coded, PickupPoint(place: "Poly Canyon")) == PickupDistance.unmatchedPlace)
        #expect(metres(PickupPoint(place: ""), PickupPoint(place: " ")) == PickupDistance.unmatchedPlace)
        #expect(0 < PickupDistance.nearbyPostalCode && PickupDistance.nearbyPostalCode < PickupDistance.otherPostalCode
                    && PickupDistance.otherPostalCode < PickupDistance.unmatchedPlace)
    }

    @Test("postal codes and places typed in printable ASCII compare as Unicode's case and space rules have them")
    func asciiNormalization() {
        var random = SplitMix64(state: 20_261_127)
        let printable = (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }
        for _ in 0..<2_000 {
            let typed = String((0..<random.int(0...12)).map { _ in random.pick(printable + [" ", "a", "Z", "9"]) })
            let scalars = typed.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }
            #expect(PickupDistance.Table.postalCode(typed) == String(String.UnicodeScalarView(scalars)))
            #expect(PickupDistance.Table.place(typed)
                        == typed.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " "))
        }
        // Other text takes the Unicode rules: no-break and ideographic spaces part words too.
        #expect(PickupDistance.Table.place("Caf\u{E9}\u{A0} \u{3000}DU  Parc") == "caf\u{E9} du parc")
        #expect(PickupDistance.Table.postalCode("k1a\u{A0}0b1") == "K1A0B1")
    }

    @Test("a report's kilometres are printf's %.1f of the metres over 1000, ties and all")
    func kilometres() {
        for metres in Array(0...60_000) + [1_234_550, 9_999_950, 20_015_086] {
            #expect(RidesPairReport.kilometres(metres) == String(format: "%.1f", Double(metres) / 1000),
                    "\(metres) m")
        }
    }

    @Test("greedy first-fit strands a passenger whom the optimal pairing seats")
    func betterThanGreedy() {
        // Ana (1) can go with Ben (10) or Cleo (20); Dev (2) only with Ben, the first car in id order.
        let instance = RideInstance(
            offers: [offer(10, to: 30, seats: 1), offer(20, to: 60, seats: 1)],
            requests: [request(1, to: window(0, 90)), request(2, to: window(0, 45))], kept: [])
        #expect(instance.greedyServed() == 1)
        let result = instance.pair()
        #expect(result.assignments.map(\.pair) == [RidePair(requestID: 1, offerID: 20, leg: .to),
                                                   RidePair(requestID: 2, offerID: 10, leg: .to)])
        #expect(result.waiting.isEmpty)
    }

    @Test("200 random instances: served, same driver both ways and distance equal networkx's min-cost flow")
    func oracle() throws {
        var random = SplitMix64(state: 20_261_003)
        let instances = (0..<200).map { _ in
            RideInstance.random(&random, offers: random.int(1...8), requests: random.int(1...24))
        }
        let results = instances.map { $0.pair() }
        for (index, (instance, result)) in zip(instances, results).enumerated() {
            #expect(instance.violations(of: result) == [], "instance \(index)")
        }
        let expected = try RidePairingOracle.solve(instances, results: results)
        #expect(expected.count == instances.count)
        for (index, (instance, result)) in zip(instances, results).enumerated() {
            #expect(instance.measure(result) == expected[index], "instance \(index)")
        }
        // The instances are not trivial: cars fill, windows miss, kept pairings and both-ways riders occur,
        // and first-fit often does worse.
        let waiting = results.flatMap(\.waiting)
        #expect(waiting.filter { $0.reason == .carsFull }.count > 300)
        #expect(waiting.filter { $0.reason == .noDriverInWindow }.count > 300)
        #expect(waiting.contains { $0.reason == .noDriverThatWay })
        #expect(instances.map(\.kept.count).reduce(0, +) > 150)
        #expect(expected.map { $0[1][1] }.reduce(0, +) > 50)
        let greedyWorse = zip(instances, results).filter { $0.greedyServed() < $1.assignments.count }.count
        #expect(greedyWorse > 10)
    }

    @Test("from one candidate per request and per car, pricing still reaches networkx's optimum on 200 random events")
    func pricedFromFewCandidates() throws {
        var random = SplitMix64(state: 20_261_122)
        let instances = (0..<200).map { _ in
            RideInstance.random(&random, offers: random.int(2...12), requests: random.int(4...30))
        }
        let results = instances.map {
            RidePairing.pair(offers: $0.offers, requests: $0.requests, kept: $0.kept, candidates: 1)
        }
        for (index, (instance, result)) in zip(instances, results).enumerated() {
            #expect(instance.violations(of: result) == [], "instance \(index)")
        }
        let expected = try RidePairingOracle.solve(instances, results: results)
        for (index, (instance, result)) in zip(instances, results).enumerated() {
            #expect(instance.measure(result) == expected[index], "instance \(index)")
        }
    }

    @Test("the nearest candidates alone would leave a passenger waiting; the priced edges seat them")
    func candidatesAloneDoWorse() {
        // Along a meridian, in km: cars at 18 (one seat) and 35 (six); riders at 14 and 13, and four
        // around the second car, at 33, 34, 36 and 37. With one candidate car per rider and four
        // candidate riders per car, the riders at 14 and 13 have only the car at 18, and the car at
        // 35 only the four around it: five ride. All six ride when 13 (or 14) takes the car at 35,
        // an edge neither ranks among its nearest.
        func coordinate(_ km: Double) -> Coordinate { Coordinate(latitude: 35 + km / 111.195, longitude: -120.66) }
        let offers = [offer(10, to: 30, seats: 1, "", coordinate(18)),
                      offer(20, to: 30, seats: 6, "", coordinate(35))]
        let requests = [14.0, 13, 33, 34, 36, 37].enumerated().map { index, km in
            request(Int64(index + 1), to: window(0, 60), "", coordinate(km))
        }
        let edges = RideLegEdges(
            rows: requests.indices.map { (window(0, 60), nil, $0) },
            columns: offers.indices.map { (at(30), offers[$0].seats, nil, requests.count + $0) },
            distances: PickupDistance.Table(requests.map(\.pickup) + offers.map(\.pickup)))
        let outCosts = requests.indices.map(edges.outCost(row:))
        var alone = AssignmentSimplex(capacities: edges.capacities, outCosts: outCosts,
                                      edges: edges.candidateEdges(count: 1))
        alone.solve()
        #expect(alone.columns.compactMap { $0 }.count == 5)

        // The optimum, by hand: 14 → 18 and 13 → 35 (or the other way round, as far), the four → 35.
        for candidates in [1, RidePairing.candidates] {
            let result = RidePairing.pair(offers: offers, requests: requests, kept: [], candidates: candidates)
            #expect(result.assignments.count == 6 && result.waiting.isEmpty && result.totalMetres == 32_000)
        }
    }

    @Test("pickups typed without coordinates (every car as near as the next) are priced in a few rounds, not one per 16 cars")
    func equalDistancesSpreadOverCars() {
        /// The leg's edges, counting the rounds of pricing (one call of `edges(cheaperThan:)` each).
        final class CountingEdges: AssignmentPricing {
            let edges: RideLegEdges
            var rounds = 0
            init(_ edges: RideLegEdges) { self.edges = edges }
            var rowCount: Int { edges.rowCount }
            var capacities: [Int] { edges.capacities }
            func outCost(row: Int) -> AssignmentCost { edges.outCost(row: row) }
            func candidateEdges(count: Int) -> [[AssignmentEdge]] { edges.candidateEdges(count: count) }
            func edges(cheaperThan duals: [AssignmentCost], at prices: [AssignmentCost],
                       _ found: (_ row: Int, AssignmentEdge) -> Void) {
                rounds += 1
                edges.edges(cheaperThan: duals, at: prices, found)
            }
        }
        // 1,000 riders, 400 cars of 2 seats, every pickup a place name of its own.
        let pickups = (0..<1_400).map { PickupPoint(place: "Dorm \($0)", coordinate: nil, postalCode: nil) }
        let edges = CountingEdges(RideLegEdges(
            rows: (0..<1_000).map { (window(0, 60), nil, $0) },
            columns: (0..<400).map { (at(30), 2, nil, 1_000 + $0) },
            distances: PickupDistance.Table(pickups)))
        let columns = AssignmentSimplex.priced(edges, candidates: RidePairing.candidates)
        #expect(columns.compactMap { $0 }.count == 800, "every seat taken")
        #expect(columns.prefix(800).allSatisfy { $0 != nil }, "the first riders ride, the later ones wait")
        // Each round used to add the same 16 cars to every waiting rider: 400 / 16 rounds and more.
        #expect(edges.rounds <= 10, "\(edges.rounds) rounds of pricing")
    }

    @Test("the same input in another order gives the same pairings")
    func deterministic() {
        var random = SplitMix64(state: 7)
        for _ in 0..<20 {
            let instance = RideInstance.random(&random, offers: 6, requests: 20)
            var shuffled = instance
            shuffled.offers.reverse()
            shuffled.requests.reverse()
            shuffled.kept.reverse()
            #expect(shuffled.pair() == instance.pair())
        }
    }

    /// Enough requests that the candidate edges and the pricing are split over the cores.
    @Test("a big event in another order gives the same pairings, every one within the rules")
    func deterministicWhenSplit() {
        var random = SplitMix64(state: 11)
        let instance = RideInstance.random(&random, offers: 300, requests: 3_000)
        var shuffled = instance
        shuffled.offers.reverse()
        shuffled.requests.reverse()
        shuffled.kept.reverse()
        let result = instance.pair()
        #expect(instance.violations(of: result) == [])
        #expect(result.assignments.count > 300)
        #expect(shuffled.pair() == result)
    }

    @Test("kept pairings stay, take their seats, and their legs are not paired again")
    func keptPairings() {
        let near = Coordinate(latitude: 35.30, longitude: -120.66)
        let far = Coordinate(latitude: 35.40, longitude: -120.66)
        let instance = RideInstance(
            offers: [offer(10, to: 30, seats: 2, "", far), offer(20, to: 30, seats: 3, "", near),
                     offer(30, to: 30, seats: 1, "", near)],
            requests: [request(1, to: window(0, 60), "", near), request(2, to: window(0, 60), "", near),
                       request(3, to: window(0, 60), "", near), request(4, to: window(0, 60), "", near)],
            // Request 1 rides with the far car though a near one has room; car 30 has lost its seat
            // (its driver lowered the seats after the pairing): it takes no one more.
            kept: [RidePair(requestID: 1, offerID: 10, leg: .to), RidePair(requestID: 2, offerID: 30, leg: .to),
                   RidePair(requestID: 3, offerID: 30, leg: .to)])
        let result = instance.pair()
        #expect(instance.violations(of: result).filter { !$0.hasPrefix("over seats") } == [])
        #expect(result.assignments.map(\.pair) == [RidePair(requestID: 4, offerID: 20, leg: .to)])
        #expect(result.assignments.map(\.metres) == [0])
    }

    @Test("a request going both ways gets one driver both ways when that costs no one a seat")
    func sameDriverBothWays() {
        let home = Coordinate(latitude: 35.30, longitude: -120.66)
        let near = Coordinate(latitude: 35.301, longitude: -120.66)
        let far = Coordinate(latitude: 35.35, longitude: -120.66)
        // Ana (1) goes both ways. Ben (10) drives both ways from far; Cleo (20) only back, later, from near.
        var instance = RideInstance(
            offers: [offer(10, to: 30, from: 300, seats: 1, "", far), offer(20, from: 315, seats: 1, "", near)],
            requests: [request(1, to: window(0, 60), from: window(280, 320), "", home)], kept: [])
        #expect(instance.pair().assignments.map(\.pair) == [RidePair(requestID: 1, offerID: 10, leg: .to),
                                                            RidePair(requestID: 1, offerID: 10, leg: .from)])
        // A kept `from` pairing draws the `to` leg to the same driver too.
        instance.offers[1].departures[.to] = at(30)
        instance.kept = [RidePair(requestID: 1, offerID: 10, leg: .from)]
        #expect(instance.pair().assignments.map(\.pair) == [RidePair(requestID: 1, offerID: 10, leg: .to)])
        // Count first: Dev (2) can only ride back with Ben, so Ana rides back with Cleo.
        instance.offers[1].departures[.to] = nil
        instance.kept = []
        instance.requests.append(request(2, from: window(290, 310), "", home))
        let result = instance.pair()
        #expect(result.assignments.map(\.pair) == [RidePair(requestID: 1, offerID: 10, leg: .to),
                                                   RidePair(requestID: 1, offerID: 20, leg: .from),
                                                   RidePair(requestID: 2, offerID: 10, leg: .from)])
        #expect(result.waiting.isEmpty)
    }

    @Test("nobody rides in their own car")
    func notWithThemselves() {
        let offers = [RideOffer(id: 10, departures: [.to: at(30)], seats: 2, pickup: PickupPoint(place: "Library"), driverID: 5),
                      RideOffer(id: 20, departures: [.to: at(30)], seats: 2, pickup: PickupPoint(place: "Dorms"), driverID: 6)]
        let requests = [RideRequest(id: 1, windows: [.to: window(0, 60)], pickup: PickupPoint(place: "Library"),
                                    passengerID: 5)]
        #expect(RidePairing.pair(offers: offers, requests: requests, kept: []).assignments.map(\.pair)
                    == [RidePair(requestID: 1, offerID: 20, leg: .to)])
    }

    @Test("each waiting leg says why: no driver that way, none in the window, all cars full")
    func waitingReasons() {
        let instance = RideInstance(
            offers: [offer(10, to: 30, seats: 1), offer(20, to: 90, seats: 0)],
            requests: [request(1, to: window(0, 60)), request(2, to: window(0, 40), from: window(300, 360)),
                       request(3, to: window(100, 200)), request(4, to: window(60, 120))],
            kept: [])
        let result = instance.pair()
        #expect(result.assignments.map(\.pair) == [RidePair(requestID: 1, offerID: 10, leg: .to)])
        #expect(result.waiting == [
            RideWaiting(requestID: 2, leg: .to, reason: .carsFull),
            RideWaiting(requestID: 2, leg: .from, reason: .noDriverThatWay),
            RideWaiting(requestID: 3, leg: .to, reason: .noDriverInWindow),
            RideWaiting(requestID: 4, leg: .to, reason: .carsFull),
        ])
        #expect(instance.violations(of: result) == [])
    }
}
