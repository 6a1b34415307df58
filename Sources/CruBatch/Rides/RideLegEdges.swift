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
    /// Per row, the distance table's index of its request's point.
    private let rowPoints: [Int]
    /// Per column, the distance table's index of its offer's point, and its driver.
    private let columnPoints: [Int]
    private let columnDrivers: [Int64?]
    /// The columns in order of departure (then column), and each column's place in that order.
    private let byDeparture: [Int]
    private let departureOrder: [Int]
    /// Per row: its run of `byDeparture`, its passenger, and its preferred column (-1 for none).
    private let runs: [Range<Int>]
    private let passengers: [Int64?]
    private let preferred: [Int]
    private let distances: PickupDistance.Table

    var rowCount: Int { runs.count }

    /// `rows` are the requests' windows, passengers, points and preferred columns (a column index or
    /// nil); `columns` the offers' departures on this leg, seats left, drivers and points; points are
    /// indices into `distances`.
    init(rows: [(window: ClosedRange<Date>, passenger: Int64?, point: Int, preferred: Int?)],
         columns: [(departure: Date, seats: Int, driver: Int64?, point: Int)], distances: PickupDistance.Table) {
        self.distances = distances
        capacities = columns.map(\.seats)
        columnPoints = columns.map(\.point)
        columnDrivers = columns.map(\.driver)
        let byDeparture = columns.indices.sorted { (columns[$0].departure, $0) < (columns[$1].departure, $1) }
        let departures = byDeparture.map { columns[$0].departure }
        self.byDeparture = byDeparture
        var departureOrder = [Int](repeating: 0, count: columns.count)
        for (position, column) in byDeparture.enumerated() { departureOrder[column] = position }
        self.departureOrder = departureOrder
        runs = rows.map { row in
            departures.partitionPoint { $0 >= row.window.lowerBound }..<departures.partitionPoint { $0 > row.window.upperBound }
        }
        rowPoints = rows.map(\.point)
        passengers = rows.map(\.passenger)
        preferred = rows.map { $0.preferred ?? -1 }
        let (rowCount, columnCount) = (AssignmentCost(rows.count), AssignmentCost(columns.count))
        tieScale = rowCount * rowCount * columnCount + rowCount * columnCount + 1
        let farthest = runs.indices.map(farthestMetres)
        otherDriverPenalty = 1 + farthest.reduce(0, +)
        outMetres = 1 + farthest.reduce(0) { $0 + $1 + otherDriverPenalty }
    }

    /// Whether the row has any column: an offer departing in its window that is not the passenger's.
    func hasColumns(_ row: Int) -> Bool { runs[row].contains { isColumn(byDeparture[$0], ofRow: row) } }

    /// The distance in metres between the row's request and the column's offer.
    func metres(row: Int, column: Int) -> Int { distances.metres(rowPoints[row], columnPoints[column]) }

    func candidateEdges(count: Int) -> [[AssignmentEdge]] {
        // The nearest, ties to the lower index; a row's preferred column besides.
        var ofRows = [Nearest](repeating: Nearest(count: count), count: rowCount)
        var ofColumns = [Nearest](repeating: Nearest(count: 2 * count), count: capacities.count)
        var chosen = [Set<Int>](repeating: [], count: rowCount)
        for row in 0..<rowCount {
            // A column does best with the nearest rows that have no preferred column of their own.
            let preferredColumn = preferred[row] >= 0 && runs[row].contains(departureOrder[preferred[row]])
                && isColumn(preferred[row], ofRow: row) ? preferred[row] : -1
            if preferredColumn >= 0 { chosen[row].insert(preferredColumn) }
            forEachColumn(ofRow: row) { column in
                let nearness = distances.nearness(rowPoints[row], columnPoints[column])
                ofRows[row].offer(nearness, column)
                if preferredColumn < 0 || preferredColumn == column { ofColumns[column].offer(nearness, row) }
            }
            chosen[row].formUnion(ofRows[row].indices)
        }
        for column in ofColumns.indices {
            for row in ofColumns[column].indices { chosen[row].insert(column) }
        }
        return chosen.indices.map { row in
            chosen[row].sorted().map { AssignmentEdge(column: $0, cost: cost(row: row, column: $0)) }
        }
    }

    func edges(cheaperThan duals: [AssignmentCost], at prices: [AssignmentCost],
               _ found: (_ row: Int, AssignmentEdge) -> Void) {
        // cost - price < dual, where cost = (metres + penalty) scale + column: roughly
        // metres < (dual + price - column) / scale - penalty, in floating point with a metre to
        // spare, then exactly.
        let scale = Double(tieScale)
        let roughPrices = prices.indices.map { (Double(prices[$0]) - Double($0)) / scale }
        for row in 0..<rowCount {
            let dual = duals[row], point = rowPoints[row]
            let roughDual = Double(dual) / scale + 2, penalty = Double(otherDriverPenalty)
            forEachColumn(ofRow: row) { column in
                let bound = roughDual + roughPrices[column] - (column == preferred[row] ? 0 : penalty)
                guard bound > 0,
                      let metres = distances.metres(point, columnPoints[column], below: Int64(min(bound, 1e18)))
                else { return }
                let edge = AssignmentEdge(column: column, cost: cost(metres: metres, row: row, column: column))
                if edge.cost - prices[column] < dual { found(row, edge) }
            }
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

    private func isColumn(_ column: Int, ofRow row: Int) -> Bool {
        passengers[row] == nil || columnDrivers[column] != passengers[row]
    }

    /// Calls `body` with each column of the row: the run of its window, less the passenger's car.
    @inline(__always)
    private func forEachColumn(ofRow row: Int, _ body: (Int) -> Void) {
        for position in runs[row] {
            let column = byDeparture[position]
            if isColumn(column, ofRow: row) { body(column) }
        }
    }

    /// The longest distance from the row to a column, 0 when it has none. Between coordinates the
    /// longest chord is the longest distance, so only that one is measured.
    private func farthestMetres(_ row: Int) -> Int64 {
        var longestChord = (nearness: -1.0, column: -1), longest: Int?
        forEachColumn(ofRow: row) { column in
            let (a, b) = (rowPoints[row], columnPoints[column])
            if distances.bothMeasured(a, b) {
                let nearness = distances.nearness(a, b)
                if nearness > longestChord.nearness { longestChord = (nearness, column) }
            } else {
                longest = max(longest ?? 0, distances.metres(a, b))
            }
        }
        if longestChord.column >= 0 { longest = max(longest ?? 0, metres(row: row, column: longestChord.column)) }
        return Int64(longest ?? 0)
    }
}

/// The `count` smallest (nearness, index) pairs offered, kept sorted.
private struct Nearest {
    private var items: [(nearness: Double, index: Int)] = []
    let count: Int

    init(count: Int) { self.count = count }

    var indices: [Int] { items.map(\.index) }

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
