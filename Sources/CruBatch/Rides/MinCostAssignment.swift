/// The optimal assignment of rows (each wants one place) to columns of limited capacity: the most
/// rows assigned, then the least total cost. Costs are non-negative integers.
///
/// It is a min-cost max-flow (source → row, capacity 1 → column, at the edge's cost → sink, capacity
/// the column's) solved by successive shortest paths with potentials, in the row-by-row form of the
/// Hungarian method (Jonker and Volgenant's augmentation). Each row is added by a Dijkstra search on
/// reduced costs from that row to the nearest column with room, on a binary heap, ending as soon as
/// that column comes off the heap. Every row also has an "unassigned" column of its own at
/// `outCost`, which must be above the total of any assignment, so a search may end by putting one
/// row out: the new row, or an earlier one whose place it is cheaper to give to the new one. All
/// rows are thus always assigned in this extended problem, and its optimum is the most rows in real
/// columns, then the least cost. The search runs over columns only (rows are passed through), which
/// keeps it fast when there are few columns and many rows.
///
/// The solution carries the duals that prove it optimal: a price for each column (0 when it has
/// room, else at most 0) and for each row what its place costs at those prices (its edge's cost less
/// its column's price; `outCost` when left out). No edge of a row costs less than that at the
/// prices, so an edge that was not given is worth adding only if it does (`priced`).
///
/// Deterministic: rows are added in the order given, the search settles equal distances in column
/// order, and a tie between putting out two rows puts out the later one.
struct MinCostAssignment {
    /// A row's place and the duals.
    struct Solution {
        /// The column of each row, nil for the rows left out.
        var columns: [Int?]
        /// Per row, the cost of its edge less its column's price; `outCost` when left out.
        var rowDuals: [Int64]
        /// Per column, its price: 0 when it has room, else at most 0.
        var columnPrices: [Int64]
    }

    /// The rows' edge lists, one per group of identical rows.
    private var groupStart: [Int] = [0]
    private var edgeColumn: [Int32] = []
    private var edgeCost: [Int64] = []
    private var rowGroup: [Int] = []
    private let capacities: [Int]

    init(capacities: [Int]) {
        self.capacities = capacities.map { max(0, $0) }
    }

    /// Adds `copies` rows, each with the columns it may take, at their costs.
    mutating func addRow(_ edges: [AssignmentEdge], copies: Int = 1) {
        for edge in edges {
            precondition(edge.cost >= 0 && capacities.indices.contains(edge.column), "bad assignment edge")
            edgeColumn.append(Int32(edge.column))
            edgeCost.append(edge.cost)
        }
        rowGroup += repeatElement(groupStart.count - 1, count: copies)
        groupStart.append(edgeColumn.count)
    }

    func solve() -> Solution {
        let rows = rowGroup.count, columns = capacities.count
        // The cost of leaving a row out: above the most any assignment of all rows can cost.
        var outCost: Int64 = 1
        for row in 0..<rows {
            outCost += edgeCost[groupStart[rowGroup[row]]..<groupStart[rowGroup[row] + 1]].max() ?? 0
        }
        var column = [Int](repeating: -1, count: rows)
        var assignedCost = [Int64](repeating: 0, count: rows)
        var seats = Seats(capacities: capacities)
        var potential = [Int64](repeating: 0, count: columns)
        var distance = [Int64](repeating: .max, count: columns)
        var settled = [Bool](repeating: false, count: columns)
        var via = [Int](repeating: -1, count: columns)
        var viaCost = [Int64](repeating: 0, count: columns)
        // The search that last followed a group's edges: copies have the same dual, so the first
        // one reached, the nearest, reaches every column at least as soon as the others would.
        var groupSearch = [Int](repeating: -1, count: groupStart.count - 1)
        var touched: [Int] = [], settledColumns: [Int] = []
        var heap = ColumnHeap()

        for newRow in 0..<rows {
            for k in touched {
                distance[k] = .max
                settled[k] = false
            }
            touched.removeAll(keepingCapacity: true)
            settledColumns.removeAll(keepingCapacity: true)
            heap.removeAll()

            // Reduced costs from the new row; its own "out" column has potential 0.
            let edges = groupStart[rowGroup[newRow]]..<groupStart[rowGroup[newRow] + 1]
            groupSearch[rowGroup[newRow]] = newRow
            var base = outCost
            for e in edges {
                base = min(base, edgeCost[e] - potential[Int(edgeColumn[e])])
            }
            func relax(_ k: Int, _ d: Int64, from row: Int, cost: Int64) {
                guard d < distance[k] else { return }
                if distance[k] == .max { touched.append(k) }
                distance[k] = d
                via[k] = row
                viaCost[k] = cost
                heap.push(d, k)
            }
            for e in edges {
                let k = Int(edgeColumn[e])
                relax(k, edgeCost[e] - potential[k] - base, from: newRow, cost: edgeCost[e])
            }
            var outDistance = outCost - base, outRow = newRow
            var end = -1
            var shortest = outDistance
            while let (nextDistance, next) = heap.popMin() {
                if settled[next] || nextDistance != distance[next] { continue }
                if outDistance < nextDistance { break }
                if seats.count(next) < capacities[next] {
                    end = next
                    shortest = nextDistance
                    break
                }
                settled[next] = true
                settledColumns.append(next)
                for row in seats.members(next) {
                    // The row's own dual is its assigned cost less its column's potential.
                    let reach = nextDistance - (assignedCost[row] - potential[next])
                    let group = rowGroup[row]
                    if groupSearch[group] != newRow {
                        groupSearch[group] = newRow
                        for e in groupStart[group]..<groupStart[group + 1] where !settled[Int(edgeColumn[e])] {
                            let k = Int(edgeColumn[e])
                            relax(k, reach + edgeCost[e] - potential[k], from: row, cost: edgeCost[e])
                        }
                    }
                    let out = reach + outCost
                    if out < outDistance || (out == outDistance && row > outRow) {
                        outDistance = out
                        outRow = row
                    }
                }
            }
            if end < 0 { shortest = outDistance }
            for k in settledColumns {
                potential[k] += distance[k] - shortest
            }

            // Augment along the path, backwards from its end.
            var target: Int
            if end >= 0 {
                target = end
            } else {
                if outRow == newRow { continue }
                target = column[outRow]
                seats.remove(outRow, from: target)
                column[outRow] = -1
            }
            while true {
                let row = via[target], previous = column[row]
                if previous >= 0 { seats.remove(row, from: previous) }
                column[row] = target
                assignedCost[row] = viaCost[target]
                seats.add(row, to: target)
                if row == newRow { break }
                target = previous
            }
        }
        let duals = (0..<rows).map { column[$0] >= 0 ? assignedCost[$0] - potential[column[$0]] : outCost }
        return Solution(columns: column.map { $0 >= 0 ? $0 : nil }, rowDuals: duals, columnPrices: potential)
    }
}

/// A column a row may take, at its cost.
struct AssignmentEdge: Hashable {
    var column: Int
    var cost: Int64
}

/// The rows in each column, in the order they came, in one array.
private struct Seats {
    private var start: [Int]
    private var used: [Int]
    private var rows: [Int]

    init(capacities: [Int]) {
        var start = [0]
        for capacity in capacities { start.append(start[start.count - 1] + capacity) }
        self.start = start
        used = [Int](repeating: 0, count: capacities.count)
        rows = [Int](repeating: -1, count: start[start.count - 1])
    }

    func count(_ column: Int) -> Int { used[column] }

    func members(_ column: Int) -> ArraySlice<Int> { rows[start[column]..<start[column] + used[column]] }

    mutating func add(_ row: Int, to column: Int) {
        rows[start[column] + used[column]] = row
        used[column] += 1
    }

    mutating func remove(_ row: Int, from column: Int) {
        let first = start[column], end = first + used[column]
        guard let at = rows[first..<end].firstIndex(of: row) else { return }
        for i in at..<end - 1 { rows[i] = rows[i + 1] }
        used[column] -= 1
    }
}

/// A binary min-heap of (distance, column), lowest column first among equal distances.
private struct ColumnHeap {
    private var items: [(distance: Int64, column: Int)] = []

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ distance: Int64, _ column: Int) {
        items.append((distance, column))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (Int64, Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < items.count && Self.less(items[left], items[least]) { least = left }
                if right < items.count && Self.less(items[right], items[least]) { least = right }
                if least == parent { break }
                items.swapAt(parent, least)
                parent = least
            }
        }
        return (top.distance, top.column)
    }

    private static func less(_ a: (distance: Int64, column: Int), _ b: (distance: Int64, column: Int)) -> Bool {
        a.distance != b.distance ? a.distance < b.distance : a.column < b.column
    }
}
