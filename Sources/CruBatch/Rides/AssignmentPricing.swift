/// An assignment problem (rows each want one place in columns of limited capacity; the most rows
/// placed, then the least total cost) whose edges are too many to search all of. It gives cheap
/// edges to start with, and finds the edges that a solution's prices say are worth adding
/// (`AssignmentSimplex.priced`).
protocol AssignmentPricing {
    var rowCount: Int { get }
    var capacities: [Int] { get }
    /// What leaving the row out costs: above the total cost of any assignment of all rows.
    func outCost(row: Int) -> AssignmentCost
    /// Per row, some of its edges: ideally its `count` cheapest and those among the `count` cheapest
    /// of their column.
    func candidateEdges(count: Int) -> [[AssignmentEdge]]
    /// Calls `found` with each edge whose cost less its column's price is below its row's dual.
    func edges(cheaperThan duals: [AssignmentCost], at prices: [AssignmentCost],
               _ found: (_ row: Int, AssignmentEdge) -> Void)
}

/// Costs are wide: a problem may weigh several goals, each as a multiple of the next.
typealias AssignmentCost = Int128

/// A column a row may take, at its cost.
struct AssignmentEdge: Hashable {
    var column: Int
    var cost: AssignmentCost
}

extension AssignmentSimplex {
    /// The optimum over all the problem's edges, searched on few of them (column generation).
    ///
    /// It starts from each row's and each column's `candidates` cheapest edges. Then every other edge of every row is priced with the solution's duals; a row with edges
    /// below its dual gets its `candidates` most profitable ones added (a column taking no more in
    /// a round than its capacity and `candidates`, so that equally good columns are shared out),
    /// and the simplex goes on from where it stood. When no edge is below its row's dual, the duals hold for every edge, which
    /// proves the solution optimal over all of them (linear programming duality; the problem is a
    /// flow, so its optimum is whole).
    ///
    /// Returns the column of each row, nil for the rows left out.
    static func priced(_ problem: some AssignmentPricing, candidates: Int) -> [Int?] {
        priced(problem, from: problem.candidateEdges(count: candidates), candidates: candidates)
    }

    /// The same, from candidate edges found beforehand (`lists`, per row).
    static func priced(_ problem: some AssignmentPricing, from lists: [[AssignmentEdge]], candidates: Int) -> [Int?] {
        var lists = lists
        let outCosts = (0..<problem.rowCount).map(problem.outCost(row:))
        var simplex = AssignmentSimplex(capacities: problem.capacities, outCosts: outCosts, edges: lists)
        while true {
            simplex.solve()
            let columns = simplex.columns, prices = simplex.columnPrices
            var better = [[AssignmentEdge]](repeating: [], count: lists.count)
            // A column without room takes no one, whatever its price.
            let capacities = problem.capacities
            problem.edges(cheaperThan: simplex.rowDuals, at: prices) { row, edge in
                if edge.column != columns[row] && capacities[edge.column] > 0 { better[row].append(edge) }
            }
            var added = false
            // Edges added to each column this round: past its seats and `candidates` more, a row
            // takes its next best instead, so that rows that find many cars equally good (no
            // coordinates: every distance the same) spread over them rather than all take the
            // same few, a round each.
            var arriving = [Int](repeating: 0, count: capacities.count)
            for row in lists.indices where !better[row].isEmpty {
                var better = better[row]
                func reduced(_ edge: AssignmentEdge) -> AssignmentCost { edge.cost - prices[edge.column] }
                better.sort { (reduced($0), $0.column) < (reduced($1), $1.column) }
                let known = Set(lists[row].map(\.column))
                precondition(better.allSatisfy { !known.contains($0.column) }, "a given edge below its row's dual")
                // The round's first row takes its best whatever, so every round adds an edge.
                let new = Array(better.lazy.filter { arriving[$0.column] < capacities[$0.column] + candidates }
                    .prefix(candidates))
                guard !new.isEmpty else { continue }
                for edge in new { arriving[edge.column] += 1 }
                lists[row] += new
                simplex.add(row: row, new)
                added = true
            }
            if !added { return columns }
        }
    }
}
