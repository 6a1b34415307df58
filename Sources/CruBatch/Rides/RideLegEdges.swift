import Foundation

/// One leg of one event as an assignment problem (`AssignmentSimplex.priced`): the requests that
/// want the leg are the rows, the offers that drive it the columns, and a request may take an offer
/// that departs inside its window and is not the passenger's own car.
///
/// An edge costs its pickup distance, plus `otherDriverPenalty` unless the offer is the request's
/// driver on the other leg; leaving a request out costs more than any assignment. Under those, in
/// units too small to outweigh a metre (`tieScale`), ties: leaving out a request costs more the
/// lower its id (by the number of columns, so it outweighs any one row's choice of car), and an
/// edge costs its column's index, so the waiting requests are the latest and the cars are taken in
/// id order.
///
/// The edges are never all listed: the offers are sorted by departure, so a request's window is a
/// run of them, found by binary search, and its edges are priced along that run when asked.
struct RideLegEdges: AssignmentPricing {
    let capacities: [Int]
    /// Above the total distance of any set of pairings, so that riding with the preferred driver
    /// outweighs any distance.
    private(set) var otherDriverPenalty: Int64 = 0
    /// Leaving a request out, in metres: above any assignment.
    private var outMetres: Int64 = 0
    /// One metre, in units of cost: above any difference the ties add up to.
    private let tieScale: AssignmentCost
    private let distances: PickupDistance.Table

    /// A pickup point: its index in `distances`, and its unit vector when it has coordinates.
    private struct Place {
        var point: Int
        var vector: SIMD3<Double>
        var measured: Bool

        init(_ point: Int, in distances: PickupDistance.Table) {
            self.point = point
            let vector = distances.unitVector(point)
            self.vector = vector ?? .zero
            measured = vector != nil
        }
    }

    /// The columns in order of departure (then column) — their positions — and per position the
    /// offer's place and driver (`Int64.max` for none).
    private let byDeparture: [Int]
    private let departureOrder: [Int]
    private let positionPlaces: [Place]
    private let positionDrivers: [Int64]
    /// The positions' unit vectors, coordinate by coordinate (zero without coordinates): copies of
    /// `positionPlaces`' vectors laid out for the loop over millions of pairs in `nearest`, which
    /// runs faster on them: 10,000 requests paired 0.02 s sooner (three sets of 7 alternated runs).
    /// And the positions whose offers have no coordinates, in order.
    private let positionXs: [Double], positionYs: [Double], positionZs: [Double]
    private let unmeasuredPositions: [Int]
    /// Per row: its request's place, its run of positions, its passenger (`Int64.min` for none),
    /// and its preferred column (-1 for none, or for one not in its run or the passenger's own).
    private let rowPlaces: [Place]
    private let runs: [Range<Int>]
    private let passengers: [Int64]
    private var preferred: [Int] = []

    var rowCount: Int { runs.count }

    /// `rows` are the requests' windows, passengers and points; `columns` the offers' departures on
    /// this leg, seats left, drivers and points; points are indices into `distances`. No row has a
    /// preferred column until `prefer(_:)`. The work per row is split over `cores`.
    init(rows: [(window: ClosedRange<Date>, passenger: Int64?, point: Int)],
         columns: [(departure: Date, seats: Int, driver: Int64?, point: Int)],
         distances: PickupDistance.Table, cores: Int = Concurrently.cores) {
        self.distances = distances
        capacities = columns.map(\.seats)
        let byDeparture = columns.indices.sorted { (columns[$0].departure, $0) < (columns[$1].departure, $1) }
        let departures = byDeparture.map { columns[$0].departure }
        self.byDeparture = byDeparture
        var departureOrder = [Int](repeating: 0, count: columns.count)
        for (position, column) in byDeparture.enumerated() { departureOrder[column] = position }
        self.departureOrder = departureOrder
        let positionPlaces = byDeparture.map { Place(columns[$0].point, in: distances) }
        self.positionPlaces = positionPlaces
        positionDrivers = byDeparture.map { columns[$0].driver ?? .max }
        positionXs = positionPlaces.map(\.vector.x)
        positionYs = positionPlaces.map(\.vector.y)
        positionZs = positionPlaces.map(\.vector.z)
        unmeasuredPositions = positionPlaces.indices.filter { !positionPlaces[$0].measured }
        runs = rows.map { row in
            let (earliest, latest) = (row.window.lowerBound, row.window.upperBound)
            return departures.partitionPoint { $0 >= earliest }..<departures.partitionPoint { $0 > latest }
        }
        rowPlaces = rows.map { Place($0.point, in: distances) }
        passengers = rows.map { $0.passenger ?? .min }
        let (rowCount, columnCount) = (AssignmentCost(rows.count), AssignmentCost(columns.count))
        tieScale = rowCount * rowCount * columnCount + rowCount * columnCount + 1
        let measured = self
        let farthest = Concurrently.parts(of: runs.count, cores: cores) { rows in rows.map(measured.farthestMetres) }
            .flatMap { $0 }
        otherDriverPenalty = 1 + farthest.reduce(0, +)
        outMetres = 1 + farthest.reduce(0) { $0 + $1 + otherDriverPenalty }
        preferred = Array(repeating: -1, count: rows.count)
    }

    /// Sets each row's preferred column (nil for none): the driver it has on the other leg, once
    /// that leg is solved. A column the row cannot take counts as none.
    mutating func prefer(_ columns: [Int?]) {
        preferred = columns.enumerated().map { row, column in
            guard let column else { return -1 }
            let position = departureOrder[column]
            return runs[row].contains(position) && positionDrivers[position] != passengers[row] ? column : -1
        }
    }

    /// Whether the row has any column: an offer departing in its window that is not the passenger's.
    func hasColumns(_ row: Int) -> Bool { runs[row].contains { positionDrivers[$0] != passengers[row] } }

    /// The distance in metres between the row's request and the column's offer.
    func metres(row: Int, column: Int) -> Int {
        distances.metres(rowPlaces[row].point, positionPlaces[departureOrder[column]].point)
    }

    /// Each row's nearest columns and each column's nearest rows, nearest first: what the candidate
    /// edges are taken from (`candidateEdges(from:count:)`).
    struct NearestLists: Sendable {
        var ofRows: [[Int]]
        var ofColumns: [[Int]]
    }

    func candidateEdges(count: Int) -> [[AssignmentEdge]] {
        candidateEdges(from: nearestLists(count: count, knowingPreferences: true), count: count)
    }

    /// A column's candidate rows per candidate column of a row: a column does best with its nearest
    /// riders, and pricing then has little left to add.
    private static let rowsPerColumn = 4

    /// Each row's `count` nearest columns, and each column's `4 count` nearest rows that have no
    /// preferred column of their own (a column does best with those). With `knowingPreferences`
    /// false (the other leg is still being solved) a column keeps its `8 count` nearest rows of any
    /// kind, which `candidateEdges(from:count:)` filters once the preferences are set.
    func nearestLists(count: Int, knowingPreferences: Bool, cores: Int = Concurrently.cores) -> NearestLists {
        // The rows are split over the cores; each part finds its rows' nearest columns and, among its
        // rows, each column's nearest, which are then merged.
        let perColumn = (knowingPreferences ? 1 : 2) * Self.rowsPerColumn * count
        let parts = Concurrently.parts(of: rowCount, cores: cores) { rows in
            nearest(of: rows, count: count, perColumn: perColumn, knowingPreferences: knowingPreferences)
        }
        return NearestLists(ofRows: parts.flatMap(\.ofRows), ofColumns: capacities.indices.map { column in
            var nearest = Nearest(count: perColumn)
            for part in parts { nearest.offer(part.ofColumns[column]) }
            return nearest.indices
        })
    }

    /// The candidate edges of each row, in column order: its nearest columns, its preferred column,
    /// and the columns that count it among their `4 count` nearest rows without a preferred column
    /// of their own. The rows are split over the cores.
    func candidateEdges(from lists: NearestLists, count: Int) -> [[AssignmentEdge]] {
        var fromColumns = [[Int]](repeating: [], count: rowCount)
        for column in capacities.indices {
            for row in lists.ofColumns[column].lazy.filter({ self.preferred[$0] < 0 || self.preferred[$0] == column })
                .prefix(Self.rowsPerColumn * count) {
                fromColumns[row].append(column)
            }
        }
        let edges = self, ofColumns = fromColumns
        return Concurrently.parts(of: rowCount) { rows in
            rows.map { row in
                var columns = lists.ofRows[row] + ofColumns[row]
                if edges.preferred[row] >= 0 { columns.append(edges.preferred[row]) }
                columns.sort()
                var candidates: [AssignmentEdge] = []
                candidates.reserveCapacity(columns.count)
                for (index, column) in columns.enumerated() where index == 0 || columns[index - 1] != column {
                    candidates.append(AssignmentEdge(column: column, cost: edges.cost(row: row, column: column)))
                }
                return candidates
            }
        }.flatMap { $0 }
    }

    /// For `rows`: each one's nearest `count` columns, and each column's nearest `perColumn` of
    /// these rows (knowing preferences, of those without a preferred column of their own); ties to
    /// the lower index.
    private func nearest(of rows: Range<Int>, count: Int, perColumn: Int,
                         knowingPreferences: Bool) -> (ofRows: [[Int]], ofColumns: [Nearest]) {
        // Kept per position (column in order of departure): each list, and what it takes (below
        // its farthest so far, once full).
        var ofPositions = [Nearest](repeating: Nearest(count: perColumn), count: capacities.count)
        var positionLimits = [Double](repeating: .infinity, count: capacities.count)
        var chosen = [[Int]](repeating: [], count: rows.count)
        // Per row, the nearness of each position of its run: first all by coordinates, then those
        // that cannot be measured so.
        var nearnessAt = [Double](repeating: 0, count: capacities.count)
        let radiusSquared = PickupDistance.earthRadius * PickupDistance.earthRadius
        for row in rows {
            let place = rowPlaces[row], passenger = passengers[row], run = runs[row]
            if place.measured {
                let (x, y, z) = (place.vector.x, place.vector.y, place.vector.z)
                for position in run {
                    let dx = positionXs[position] - x, dy = positionYs[position] - y, dz = positionZs[position] - z
                    nearnessAt[position] = (dx * dx + dy * dy + dz * dz) * radiusSquared
                }
                let first = unmeasuredPositions.partitionPoint { $0 >= run.lowerBound }
                for position in unmeasuredPositions[first...].prefix(while: { $0 < run.upperBound }) {
                    nearnessAt[position] = unmeasuredNearness(place, position)
                }
            } else {
                for position in run { nearnessAt[position] = unmeasuredNearness(place, position) }
            }
            let preferredPosition = knowingPreferences && preferred[row] >= 0 ? departureOrder[preferred[row]] : -1
            var ofRow = Nearest(count: count)
            var rowLimit = Double.infinity
            for position in run where positionDrivers[position] != passenger {
                let nearness = nearnessAt[position]
                if nearness <= rowLimit {
                    ofRow.offer(nearness, byDeparture[position])
                    rowLimit = ofRow.limit
                }
                if nearness <= positionLimits[position] && (preferredPosition < 0 || preferredPosition == position) {
                    ofPositions[position].offer(nearness, row)
                    positionLimits[position] = ofPositions[position].limit
                }
            }
            chosen[row - rows.lowerBound] = ofRow.indices
        }
        return (chosen, capacities.indices.map { ofPositions[departureOrder[$0]] })
    }

    func edges(cheaperThan duals: [AssignmentCost], at prices: [AssignmentCost],
               _ found: (_ row: Int, AssignmentEdge) -> Void) {
        // cost - price < dual, where cost = (metres + penalty) scale + column: roughly
        // metres < (dual + price - column) / scale - penalty, in floating point with a metre to
        // spare; where the chord shows the pair is farther, that is all, else exactly.
        let scale = Double(tieScale), radius = PickupDistance.earthRadius
        let roughPrices = byDeparture.map { (Double(prices[$0]) - Double($0)) / scale }
        // The rows are split over the cores; what each part finds is handed on in row order.
        let parts = Concurrently.parts(of: rowCount) { rows in
            var cheaper: [(row: Int, edge: AssignmentEdge)] = []
            for row in rows {
                let dual = duals[row], place = rowPlaces[row], passenger = passengers[row]
                let roughDual = Double(dual) / scale + 2, penalty = Double(otherDriverPenalty)
                let preferredPosition = preferred[row] >= 0 ? departureOrder[preferred[row]] : -1
                for position in runs[row] where positionDrivers[position] != passenger {
                    let bound = roughDual + roughPrices[position] - (position == preferredPosition ? 0 : penalty)
                    guard bound > 0 else { continue }
                    let other = positionPlaces[position]
                    let metres: Int
                    if place.measured && other.measured {
                        let chordSquared = PickupDistance.Table.chordSquared(place.vector, other.vector)
                        // The arc is at least R c.
                        if chordSquared * radius * radius >= bound * bound { continue }
                        metres = PickupDistance.Table.metres(chordSquared: chordSquared)
                    } else {
                        metres = distances.metres(place.point, other.point)
                    }
                    let column = byDeparture[position]
                    let edge = AssignmentEdge(column: column, cost: cost(metres: metres, row: row, column: column))
                    if edge.cost - prices[column] < dual { cheaper.append((row, edge)) }
                }
            }
            return cheaper
        }
        for part in parts {
            for (row, edge) in part { found(row, edge) }
        }
    }

    func cost(row: Int, column: Int) -> AssignmentCost {
        cost(metres: metres(row: row, column: column), row: row, column: column)
    }

    func outCost(row: Int) -> AssignmentCost {
        AssignmentCost(outMetres) * tieScale + AssignmentCost(rowCount - row) * AssignmentCost(capacities.count)
    }

    private func cost(metres: Int, row: Int, column: Int) -> AssignmentCost {
        let penalty = column == preferred[row] ? 0 : otherDriverPenalty
        return AssignmentCost(Int64(metres) + penalty) * tieScale + AssignmentCost(column)
    }

    /// Calls `body` with each position of the row: the run of its window, less the passenger's car.
    @inline(__always)
    private func forEachPosition(ofRow row: Int, _ body: (Int) -> Void) {
        for position in runs[row] where positionDrivers[position] != passengers[row] { body(position) }
    }

    /// The nearness of a pair that coordinates cannot measure: the square of its distance. Nearness
    /// grows with the distance and is cheaper to find; between coordinates it is the square of the
    /// chord in metres, which orders such pairs as their distances. It only guides which edges to
    /// try first.
    private func unmeasuredNearness(_ place: Place, _ position: Int) -> Double {
        let metres = Double(distances.metres(place.point, positionPlaces[position].point))
        return metres * metres
    }

    /// The longest distance from the row to a column, 0 when it has none. Between coordinates the
    /// longest chord is the longest distance, so only that one is measured.
    private func farthestMetres(_ row: Int) -> Int64 {
        var longestChord = -1.0, longest = 0
        let place = rowPlaces[row]
        forEachPosition(ofRow: row) { position in
            let other = positionPlaces[position]
            if place.measured && other.measured {
                longestChord = max(longestChord, PickupDistance.Table.chordSquared(place.vector, other.vector))
            } else {
                longest = max(longest, distances.metres(place.point, other.point))
            }
        }
        if longestChord >= 0 { longest = max(longest, PickupDistance.Table.metres(chordSquared: longestChord)) }
        return Int64(longest)
    }
}

/// The `count` smallest (nearness, index) pairs offered, kept sorted.
private struct Nearest {
    private var items: [(nearness: Double, index: Int)] = []
    let count: Int

    init(count: Int) { self.count = count }

    var indices: [Int] { items.map(\.index) }

    /// Offers every pair `other` holds.
    mutating func offer(_ other: Nearest) {
        for item in other.items { offer(item.nearness, item.index) }
    }

    /// Above this, an offer is not taken.
    var limit: Double { items.count == count ? items[items.count - 1].nearness : .infinity }

    mutating func offer(_ nearness: Double, _ index: Int) {
        if items.count == count {
            guard let last = items.last, (nearness, index) < last else { return }
            items.removeLast()
        }
        items.insert((nearness, index), at: items.partitionPoint { $0 > (nearness, index) })
    }
}

extension Array {
    /// The first index whose element is in the second part of an array split by `isSecond` (all the
    /// elements for which it is false come first).
    func partitionPoint(_ isSecond: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isSecond(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
