/// An assignment problem (rows each want one place in columns of limited capacity; the most rows
/// placed, then the least total cost) whose edges are too many to search all of. It lists a row's
/// columns, and gives each row's cheapest edges to start with and the edges that a solution's
/// prices say are worth adding (`MinCostAssignment.priced`).
protocol AssignmentPricing {
    var rowCount: Int { get }
    var capacities: [Int] { get }
    func cost(row: Int, column: Int) -> Int64
    /// Calls `visit` with each column of the row in turn until it returns false.
    func forEachColumn(ofRow row: Int, _ visit: (Int) -> Bool)
    /// Per row, some of its `allowed` edges sorted by column: ideally its `count` cheapest and those
    /// among the `count` cheapest of their column.
    func candidateEdges(count: Int, allowed: (_ row: Int, _ column: Int) -> Bool) -> [[AssignmentEdge]]
    /// Calls `found` with each edge of the row whose cost less its column's price is below `dual`.
    func edges(ofRow row: Int, cheaperThan dual: Int64, at prices: [Int64], _ found: (AssignmentEdge) -> Void)
}

extension MinCostAssignment {
    /// The optimum over all the problem's edges, searched on few of them.
    ///
    /// `AssignmentMatching` splits the problem, over all its edges, into its short part (columns
    /// that every largest assignment fills with the rows that reach them) and the rest (rows that
    /// every largest assignment seats). Each part is solved on each row's and each column's
    /// `candidates` cheapest edges and the edges of the largest assignment, so that it can still be
    /// filled: the rest row by row,
    /// the short part seat by seat (each seat of a column a row of a transposed problem whose columns
    /// are the short rows), so that no search has to weigh leaving anyone out.
    ///
    /// Then every other edge of every row is priced with the duals of the solution, and a row with
    /// edges below its dual gets its `candidates` most profitable ones added, and the parts are
    /// solved again (column generation). When no edge is below its row's dual, the duals hold for
    /// every edge of each part, which proves each part's solution optimal over all its edges (linear
    /// programming duality; the problems are flows, so their optima are whole).
    ///
    /// Returns the column of each row, nil for the rows left out.
    static func priced(_ problem: some AssignmentPricing, candidates: Int) -> [Int?] {
        let matching = AssignmentMatching(problem)
        let shortRows = matching.shortRows, shortColumns = matching.shortColumns
        // A short row has only short columns; the other rows are never seated in them.
        var lists = problem.candidateEdges(count: candidates) { shortRows[$0] || !shortColumns[$1] }
        for row in lists.indices {
            let matched = matching.columnOfRow[row]
            if matched >= 0 && !lists[row].contains(where: { $0.column == matched }) {
                lists[row].append(AssignmentEdge(column: matched, cost: problem.cost(row: row, column: matched)))
                lists[row].sort { $0.column < $1.column }
            }
        }
        while true {
            let plenty = PlentyPart(problem: problem, lists: lists, shortRows: shortRows, shortColumns: shortColumns)
            let short = ShortPart(problem: problem, lists: lists, shortRows: shortRows, shortColumns: shortColumns)
            var added = false
            for row in lists.indices {
                var better: [AssignmentEdge] = []
                let (dual, prices) = shortRows[row] ? (short.rowDuals[row], short.prices)
                    : (plenty.rowDuals[row], plenty.prices)
                problem.edges(ofRow: row, cheaperThan: dual, at: prices) { better.append($0) }
                guard !better.isEmpty else { continue }
                func reduced(_ edge: AssignmentEdge) -> Int64 { edge.cost - prices[edge.column] }
                better.sort { (reduced($0), $0.column) < (reduced($1), $1.column) }
                let known = Set(lists[row].map(\.column))
                precondition(better.allSatisfy { !known.contains($0.column) }, "a given edge below its row's dual")
                lists[row] = (lists[row] + better.prefix(candidates)).sorted { $0.column < $1.column }
                added = true
            }
            if !added {
                return lists.indices.map { shortRows[$0] ? short.columns[$0] : plenty.columns[$0] }
            }
        }
    }
}

/// The rows that every largest assignment seats, solved row by row in the columns that are not short.
private struct PlentyPart {
    /// Per row of the problem (nil and 0 for short rows): its column, its dual.
    var columns: [Int?]
    var rowDuals: [Int64]
    /// Per column of the problem: its price; short columns priced so low that no edge into them is
    /// ever below a dual (no largest assignment seats these rows there).
    var prices: [Int64]

    init(problem: some AssignmentPricing, lists: [[AssignmentEdge]], shortRows: [Bool], shortColumns: [Bool]) {
        let rows = lists.indices.filter { !shortRows[$0] }
        let columns = problem.capacities.indices.filter { !shortColumns[$0] }
        var index = [Int](repeating: -1, count: problem.capacities.count)
        for (position, column) in columns.enumerated() { index[column] = position }
        var solver = MinCostAssignment(capacities: columns.map { problem.capacities[$0] })
        for row in rows {
            solver.addRow(lists[row].map { AssignmentEdge(column: index[$0.column], cost: $0.cost) })
        }
        let solution = solver.solve()
        self.columns = [Int?](repeating: nil, count: lists.count)
        rowDuals = [Int64](repeating: 0, count: lists.count)
        for (position, row) in rows.enumerated() {
            self.columns[row] = solution.columns[position].map { columns[$0] }
            rowDuals[row] = solution.rowDuals[position]
        }
        prices = [Int64](repeating: Int64.min / 4, count: problem.capacities.count)
        for (position, column) in columns.enumerated() { prices[column] = solution.columnPrices[position] }
    }
}

/// The short columns, filled seat by seat with short rows: a transposed problem whose rows are the
/// seats (each with the edges of the short rows that may take its column) and whose columns are the
/// short rows, one place each. Every seat of a column has the same dual (each could take the
/// other's row), the column's price; a short row's dual is its price in the transposed problem.
private struct ShortPart {
    var columns: [Int?]
    var rowDuals: [Int64]
    var prices: [Int64]

    init(problem: some AssignmentPricing, lists: [[AssignmentEdge]], shortRows: [Bool], shortColumns: [Bool]) {
        let rows = lists.indices.filter { shortRows[$0] }
        var index = [Int](repeating: -1, count: lists.count)
        for (position, row) in rows.enumerated() { index[row] = position }
        var takers = [[AssignmentEdge]](repeating: [], count: problem.capacities.count)
        for row in rows {
            for edge in lists[row] { takers[edge.column].append(AssignmentEdge(column: index[row], cost: edge.cost)) }
        }
        var seatColumns: [Int] = []
        var solver = MinCostAssignment(capacities: [Int](repeating: 1, count: rows.count))
        for column in problem.capacities.indices where shortColumns[column] {
            let seats = max(0, problem.capacities[column])
            solver.addRow(takers[column], copies: seats)
            seatColumns += repeatElement(column, count: seats)
        }
        let solution = solver.solve()
        columns = [Int?](repeating: nil, count: lists.count)
        rowDuals = [Int64](repeating: 0, count: lists.count)
        for (position, row) in rows.enumerated() { rowDuals[row] = solution.columnPrices[position] }
        // A column without seats takes no one, at any price.
        prices = [Int64](repeating: Int64.min / 4, count: problem.capacities.count)
        for (seat, column) in seatColumns.enumerated() {
            if let position = solution.columns[seat] { columns[rows[position]] = column }
            prices[column] = solution.rowDuals[seat]
        }
    }
}
