/// The optimal assignment of rows (each wants one place) to columns of limited capacity: the most
/// rows assigned, then the least total cost; by the network simplex method, so that edges can be
/// added to a solved problem and solved again from where it stood (`AssignmentSimplex.priced`).
///
/// The network: each row supplies one unit, which goes to a column along an edge, at its cost, or
/// to the root at its out cost (left out), which must be above the total cost of any assignment; each
/// column passes up to its capacity on to the root, which takes every unit. The basis is a spanning
/// tree rooted at the root, held as parents and lists of children, with node potentials that make
/// every tree arc's reduced cost 0. It starts with every row left out and every column empty.
/// Entering arcs are chosen by block search (the most violating arc of the first block of arcs that
/// has one); the leaving arc is the last blocking arc of the cycle from the join, which keeps the
/// tree strongly feasible and the method from cycling on degenerate pivots.
///
/// At the optimum no arc at its lower bound has a negative reduced cost and none at its upper bound
/// a positive one: with `rowDual` and `columnPrices`, no edge's cost less its column's price is
/// below its row's dual, except the edges rows are assigned along.
struct AssignmentSimplex {
    private let rows: Int, root: Int
    /// Arcs: each row's way out, each column's way to the root, then the edges.
    private var source: [Int] = [], target: [Int] = []
    private var cost: [AssignmentCost] = [], capacity: [Int] = [], flow: [Int] = []
    /// The tree: per node its parent, the arc to it, whether that arc points to the parent, its
    /// depth, its potential, and its children as a doubly linked list.
    private var parent: [Int], pred: [Int], up: [Bool], depth: [Int], potential: [AssignmentCost]
    private var firstChild: [Int], nextSibling: [Int], previousSibling: [Int]
    private var nextArc = 0

    init(capacities: [Int], outCosts: [AssignmentCost]) {
        let rows = outCosts.count
        self.rows = rows
        root = rows + capacities.count
        let nodes = root + 1
        parent = [Int](repeating: root, count: nodes)
        pred = [Int](repeating: -1, count: nodes)
        up = [Bool](repeating: true, count: nodes)
        depth = [Int](repeating: 1, count: nodes)
        potential = [AssignmentCost](repeating: 0, count: nodes)
        firstChild = [Int](repeating: -1, count: nodes)
        nextSibling = [Int](repeating: -1, count: nodes)
        previousSibling = [Int](repeating: -1, count: nodes)
        parent[root] = -1
        depth[root] = 0
        for node in 0..<root {
            // A row sends its unit out (a row supplies only one, so its way out needs no bound); a
            // column sends nothing yet.
            let isRow = node < rows
            addArc(from: node, to: root, cost: isRow ? outCosts[node] : 0,
                   capacity: isRow ? Int.max / 2 : max(0, capacities[node - rows]), flow: isRow ? 1 : 0)
            pred[node] = node
            potential[node] = -cost[node]
            attach(node, to: root)
        }
    }

    /// Adds edges from a row to columns, carrying nothing.
    mutating func add(row: Int, _ edges: [AssignmentEdge]) {
        for edge in edges {
            precondition(edge.cost >= 0 && rows + edge.column < root, "bad assignment edge")
            addArc(from: row, to: rows + edge.column, cost: edge.cost, capacity: 1, flow: 0)
        }
    }

    /// Pivots until no arc can lower the total cost.
    mutating func solve() {
        let block = max(16, Int(Double(source.count).squareRoot()))
        while let entering = findEntering(block: block) { pivot(entering) }
    }

    /// The column of each row, nil for the rows left out.
    var columns: [Int?] {
        var columns = [Int?](repeating: nil, count: rows)
        for arc in (root)..<source.count where flow[arc] > 0 { columns[source[arc]] = target[arc] - rows }
        return columns
    }

    /// Per row, the least that an edge's cost less its column's price may be.
    var rowDuals: [AssignmentCost] { (0..<rows).map { -potential[$0] } }

    /// Per column, its price.
    var columnPrices: [AssignmentCost] { Array(potential[rows..<root]) }

    private mutating func addArc(from: Int, to: Int, cost arcCost: AssignmentCost, capacity arcCapacity: Int, flow arcFlow: Int) {
        source.append(from)
        target.append(to)
        cost.append(arcCost)
        capacity.append(arcCapacity)
        flow.append(arcFlow)
    }

    private func reducedCost(_ arc: Int) -> AssignmentCost { cost[arc] + potential[source[arc]] - potential[target[arc]] }

    /// How much an arc violates optimality (negative when it does): below its bound with a
    /// negative reduced cost, or above it with a positive one.
    private func violation(_ arc: Int) -> AssignmentCost {
        let reduced = reducedCost(arc)
        if reduced < 0 && flow[arc] < capacity[arc] { return reduced }
        if reduced > 0 && flow[arc] > 0 { return -reduced }
        return 0
    }

    private mutating func findEntering(block: Int) -> Int? {
        let arcs = source.count
        var best = -1, bestViolation: AssignmentCost = 0, scanned = 0, inBlock = 0
        var arc = nextArc
        while scanned < arcs {
            let v = violation(arc)
            if v < bestViolation {
                best = arc
                bestViolation = v
            }
            arc = arc + 1 == arcs ? 0 : arc + 1
            scanned += 1
            inBlock += 1
            if inBlock == block {
                if best >= 0 { break }
                inBlock = 0
            }
        }
        nextArc = arc
        return best >= 0 ? best : nil
    }

    private mutating func pivot(_ entering: Int) {
        // Push along the entering arc from `first` to `second`, then back to `first` in the tree.
        let forward = reducedCost(entering) < 0
        let first = forward ? source[entering] : target[entering]
        let second = forward ? target[entering] : source[entering]
        var a = first, b = second
        while a != b {
            if depth[a] > depth[b] {
                a = parent[a]
            } else if depth[b] > depth[a] {
                b = parent[b]
            } else {
                a = parent[a]
                b = parent[b]
            }
        }
        let join = a
        // The leaving arc: the last one of the least room, in the cycle's order from the join
        // (down to `first`, the entering arc, up from `second`).
        var delta = forward ? capacity[entering] - flow[entering] : flow[entering]
        var leaving = -1, leavingSide = 0
        var node = first
        while node != join {
            let arc = pred[node], room = up[node] ? flow[arc] : capacity[arc] - flow[arc]
            if room < delta {
                delta = room
                leaving = node
                leavingSide = 1
            }
            node = parent[node]
        }
        node = second
        while node != join {
            let arc = pred[node], room = up[node] ? capacity[arc] - flow[arc] : flow[arc]
            if room <= delta {
                delta = room
                leaving = node
                leavingSide = 2
            }
            node = parent[node]
        }
        if delta > 0 {
            flow[entering] += forward ? delta : -delta
            node = first
            while node != join {
                flow[pred[node]] += up[node] ? -delta : delta
                node = parent[node]
            }
            node = second
            while node != join {
                flow[pred[node]] += up[node] ? delta : -delta
                node = parent[node]
            }
        }
        guard leaving >= 0 else { return }
        // The subtree under the leaving arc hangs from the entering arc instead: the path from the
        // entering arc's end inside it up to the leaving arc turns round.
        let inside = leavingSide == 1 ? first : second
        let outside = leavingSide == 1 ? second : first
        var path: [(node: Int, pred: Int, up: Bool)] = []
        node = inside
        while true {
            path.append((node, pred[node], up[node]))
            if node == leaving { break }
            node = parent[node]
        }
        for step in path { detach(step.node) }
        for (index, step) in path.enumerated() {
            if index == 0 {
                parent[step.node] = outside
                pred[step.node] = entering
                up[step.node] = source[entering] == step.node
            } else {
                parent[step.node] = path[index - 1].node
                pred[step.node] = path[index - 1].pred
                up[step.node] = !path[index - 1].up
            }
            attach(step.node, to: parent[step.node])
        }
        // New depths and potentials under the moved subtree.
        var stack = [inside]
        while let top = stack.popLast() {
            let above = parent[top], arc = pred[top]
            depth[top] = depth[above] + 1
            potential[top] = up[top] ? potential[above] - cost[arc] : potential[above] + cost[arc]
            var child = firstChild[top]
            while child >= 0 {
                stack.append(child)
                child = nextSibling[child]
            }
        }
    }

    private mutating func attach(_ node: Int, to newParent: Int) {
        previousSibling[node] = -1
        nextSibling[node] = firstChild[newParent]
        if firstChild[newParent] >= 0 { previousSibling[firstChild[newParent]] = node }
        firstChild[newParent] = node
    }

    private mutating func detach(_ node: Int) {
        let oldParent = parent[node]
        if previousSibling[node] >= 0 {
            nextSibling[previousSibling[node]] = nextSibling[node]
        } else {
            firstChild[oldParent] = nextSibling[node]
        }
        if nextSibling[node] >= 0 { previousSibling[nextSibling[node]] = previousSibling[node] }
        previousSibling[node] = -1
        nextSibling[node] = -1
    }
}
