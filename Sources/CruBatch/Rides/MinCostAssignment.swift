/// The optimal assignment of rows (each wants one place) to columns of limited capacity: the most
/// rows assigned, then the least total cost. Costs are non-negative integers.
///
/// It is a min-cost max-flow (source → row, capacity 1 → column, at the edge's cost → sink, capacity
/// the column's) solved by successive shortest paths with potentials, in the row-by-row form of the
/// Hungarian method (Jonker and Volgenant's augmentation). Each row is added by a Dijkstra search on
/// reduced costs from that row to the nearest column with room. Every row also has an "unassigned"
/// column of its own whose cost is above the total of any assignment, so a search may end by
/// putting one row out: the new row, or an earlier one whose place it is cheaper to give to the
/// new one. All rows are thus always assigned in this extended problem, and its optimum is the
/// most rows in real columns, then the least cost. The search runs over columns only (rows are
/// passed through), which keeps it fast when there are few columns and many rows.
///
/// Deterministic: rows are added in the order given, the search settles equal distances in column
/// order, and a tie between putting out two rows puts out the later one.
struct MinCostAssignment {
    private var rowStart: [Int] = [0]
    private var edgeColumn: [Int] = []
    private var edgeCost: [Int64] = []
    private let capacities: [Int]

    init(capacities: [Int]) {
        self.capacities = capacities.map { max(0, $0) }
    }

    /// Adds a row with the columns it may take, at their costs.
    mutating func addRow(_ edges: [(column: Int, cost: Int64)]) {
        for edge in edges {
            precondition(edge.cost >= 0 && capacities.indices.contains(edge.column), "bad assignment edge")
            edgeColumn.append(edge.column)
            edgeCost.append(edge.cost)
        }
        rowStart.append(edgeColumn.count)
    }

    /// The column of each row, nil for the rows left out.
    func solve() -> [Int?] {
        let rows = rowStart.count - 1, columns = capacities.count
        // The cost of leaving a row out: above the most any assignment of all rows can cost.
        var outCost: Int64 = 1
        for row in 0..<rows {
            outCost += edgeCost[rowStart[row]..<rowStart[row + 1]].max() ?? 0
        }
        var column = [Int](repeating: -1, count: rows)
        var assignedCost = [Int64](repeating: 0, count: rows)
        var members = [[Int]](repeating: [], count: columns)
        var potential = [Int64](repeating: 0, count: columns)
        var distance = [Int64](repeating: .max, count: columns)
        var settled = [Bool](repeating: false, count: columns)
        var via = [Int](repeating: -1, count: columns)
        var viaCost = [Int64](repeating: 0, count: columns)
        var touched: [Int] = [], settledColumns: [Int] = []

        for newRow in 0..<rows {
            for k in touched {
                distance[k] = .max
                settled[k] = false
            }
            touched.removeAll(keepingCapacity: true)
            settledColumns.removeAll(keepingCapacity: true)

            // Reduced costs from the new row; its own "out" column has potential 0.
            var base = outCost
            for e in rowStart[newRow]..<rowStart[newRow + 1] {
                base = min(base, edgeCost[e] - potential[edgeColumn[e]])
            }
            func relax(_ k: Int, _ d: Int64, from row: Int, cost: Int64) {
                guard d < distance[k] else { return }
                if distance[k] == .max { touched.append(k) }
                distance[k] = d
                via[k] = row
                viaCost[k] = cost
            }
            for e in rowStart[newRow]..<rowStart[newRow + 1] {
                let k = edgeColumn[e]
                relax(k, edgeCost[e] - potential[k] - base, from: newRow, cost: edgeCost[e])
            }
            var outDistance = outCost - base, outRow = newRow
            var end = -1
            var shortest: Int64
            while true {
                var next = -1, nextDistance = Int64.max
                for k in touched where !settled[k] && (distance[k], k) < (nextDistance, next < 0 ? Int.max : next) {
                    next = k
                    nextDistance = distance[k]
                }
                if next < 0 || outDistance < nextDistance {
                    shortest = outDistance
                    break
                }
                if members[next].count < capacities[next] {
                    end = next
                    shortest = nextDistance
                    break
                }
                settled[next] = true
                settledColumns.append(next)
                for row in members[next] {
                    // The row's own dual is its assigned cost less its column's potential.
                    let reach = nextDistance - (assignedCost[row] - potential[next])
                    for e in rowStart[row]..<rowStart[row + 1] where !settled[edgeColumn[e]] {
                        let k = edgeColumn[e]
                        relax(k, reach + edgeCost[e] - potential[k], from: row, cost: edgeCost[e])
                    }
                    let out = reach + outCost
                    if out < outDistance || (out == outDistance && row > outRow) {
                        outDistance = out
                        outRow = row
                    }
                }
            }
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
                members[target].removeAll { $0 == outRow }
                column[outRow] = -1
            }
            while true {
                let row = via[target], previous = column[row]
                if previous >= 0 { members[previous].removeAll { $0 == row } }
                column[row] = target
                assignedCost[row] = viaCost[target]
                members[target].append(row)
                if row == newRow { break }
                target = previous
            }
        }
        return column.map { $0 >= 0 ? $0 : nil }
    }
}
