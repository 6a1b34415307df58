/// The optimal assignment of rows (each wants one place) to columns of limited capacity: the most
/// rows assigned, then the least total cost; by the network simplex method, so that edges can be
/// added to a solved problem and solved again from where it stood (`AssignmentSimplex.priced`).
///
/// The network: each row supplies one unit, which goes to a column along an edge, at its cost, or
/// to the root at its out cost (left out), which must be above the total cost of any assignment; each
/// column passes up to its capacity on to the root, which takes every unit. The basis is a spanning
/// tree rooted at the root, held as parents and lists of children, with node potentials that make
/// every tree arc's reduced cost 0. It starts from a greedy assignment.
/// Entering arcs are chosen by block search (the most violating arc of the first block of arcs that
/// has one; blocks of a quarter of the square root of the arcs measured fastest on 10,000 requests,
/// 20% faster than the usual whole square root); the leaving arc is the last blocking arc of the cycle from the join, which keeps the
/// tree strongly feasible and the method from cycling on degenerate pivots.
///
/// At the optimum no arc at its lower bound has a negative reduced cost and none at its upper bound
/// a positive one: with `rowDual` and `columnPrices`, no edge's cost less its column's price is
/// below its row's dual, except the edges rows are assigned along.
struct AssignmentSimplex {
    private let rows: Int, root: Int
    /// An arc, in 32 bytes.
    private struct Arc {
        var cost: AssignmentCost
        var source: Int32, target: Int32
        var capacity: Int32, flow: Int32
    }

    /// Arcs: each row's way out, each column's way to the root, then the edges.
    private var arcs: [Arc] = []
    /// The tree: per node its parent, the arc to it, whether that arc points to the parent, its
    /// depth, its potential, and its children as a doubly linked list.
    private var parent: [Int], pred: [Int], up: [Bool], depth: [Int], potential: [AssignmentCost]
    private var firstChild: [Int], nextSibling: [Int], previousSibling: [Int]
    private var nextArc = 0

    /// Starts from `edges` (per row) taken greedily, cheapest first, while their columns have room.
    init(capacities: [Int], outCosts: [AssignmentCost], edges: [[AssignmentEdge]]) {
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
        // A row's way out needs no bound (a row supplies only one unit).
        for row in 0..<rows { addArc(from: row, to: root, cost: outCosts[row], capacity: Int(Int32.max / 2), flow: 1) }
        for capacity in capacities { addArc(from: arcs.count, to: root, cost: 0, capacity: max(0, capacity), flow: 0) }
        for (row, list) in edges.enumerated() { add(row: row, list) }
        // The out arc of row r is arc r, and the way to the root of column node k is arc k.
        var greedy = Array(root..<arcs.count)
        func order(_ arc: Int) -> (AssignmentCost, Int32, Int32) {
            (arcs[arc].cost, arcs[arc].source, arcs[arc].target)
        }
        greedy.sort { order($0) < order($1) }
        var firstArc = [Int](repeating: -1, count: nodes)
        for arc in greedy {
            let row = Int(arcs[arc].source), column = Int(arcs[arc].target)
            guard arcs[row].flow == 1 && arcs[column].flow < arcs[column].capacity else { continue }
            arcs[arc].flow = 1
            arcs[row].flow = 0
            arcs[column].flow += 1
            if firstArc[column] < 0 { firstArc[column] = arc }
        }
        // The tree, strongly feasible (every node can send flow to the root along it): rows and the
        // columns with room hang from the root by their ways out; a full column hangs from its first
        // row by their edge, which carries its unit.
        for row in 0..<rows {
            pred[row] = row
            potential[row] = -outCosts[row]
            attach(row, to: root)
        }
        for column in rows..<root {
            if arcs[column].flow < arcs[column].capacity || firstArc[column] < 0 {
                pred[column] = column
                attach(column, to: root)
            } else {
                let arc = firstArc[column], row = Int(arcs[arc].source)
                parent[column] = row
                pred[column] = arc
                up[column] = false
                depth[column] = 2
                potential[column] = potential[row] + arcs[arc].cost
                attach(column, to: row)
            }
        }
    }

    /// Adds edges from a row to columns, carrying nothing (none to a column without room at all).
    mutating func add(row: Int, _ edges: [AssignmentEdge]) {
        for edge in edges where arcs[rows + edge.column].capacity > 0 {
            precondition(edge.cost >= 0 && rows + edge.column < root, "bad assignment edge")
            addArc(from: row, to: rows + edge.column, cost: edge.cost, capacity: 1, flow: 0)
        }
    }

    /// Pivots until no arc can lower the total cost.
    mutating func solve() {
        let block = max(16, Int(Double(arcs.count).squareRoot()) / 4)
        while let entering = findEntering(block: block) { pivot(entering) }
    }

    /// The column of each row, nil for the rows left out.
    var columns: [Int?] {
        var columns = [Int?](repeating: nil, count: rows)
        for arc in arcs[root...] where arc.flow > 0 { columns[Int(arc.source)] = Int(arc.target) - rows }
        return columns
    }

    /// Per row, the least that an edge's cost less its column's price may be.
    var rowDuals: [AssignmentCost] { (0..<rows).map { -potential[$0] } }

    /// Per column, its price.
    var columnPrices: [AssignmentCost] { Array(potential[rows..<root]) }

    private mutating func addArc(from: Int, to: Int, cost: AssignmentCost, capacity: Int, flow: Int) {
        arcs.append(Arc(cost: cost, source: Int32(from), target: Int32(to), capacity: Int32(capacity),
                        flow: Int32(flow)))
    }

    /// Costs and potentials stay far inside the range of `AssignmentCost`, so the sums need no
    /// overflow checks.
    private func reducedCost(_ arc: Int) -> AssignmentCost { reducedCost(arcs[arc]) }

    private func reducedCost(_ arc: Arc) -> AssignmentCost {
        arc.cost &+ potential[Int(arc.source)] &- potential[Int(arc.target)]
    }

    /// How much an arc violates optimality (negative when it does): below its bound with a
    /// negative reduced cost, or above it with a positive one.
    private func violation(_ arc: Arc) -> AssignmentCost {
        let reduced = reducedCost(arc)
        if reduced < 0 && arc.flow < arc.capacity { return reduced }
        if reduced > 0 && arc.flow > 0 { return -reduced }
        return 0
    }

    private mutating func findEntering(block: Int) -> Int? {
        let count = arcs.count
        var best = -1, bestViolation: AssignmentCost = 0, scanned = 0, inBlock = 0
        var arc = nextArc
        while scanned < count {
            let v = violation(arcs[arc])
            if v < bestViolation {
                best = arc
                bestViolation = v
            }
            arc = arc + 1 == count ? 0 : arc + 1
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

    /// Sends as much flow as fits round the cycle the entering arc closes in the tree, and swaps the
    /// arc that runs out of room (if any) for the entering one.
    private mutating func pivot(_ entering: Int) {
        // Push along the entering arc from `first` to `second`, then back to `first` in the tree.
        let forward = reducedCost(entering) < 0
        let first = forward ? Int(arcs[entering].source) : Int(arcs[entering].target)
        let second = forward ? Int(arcs[entering].target) : Int(arcs[entering].source)
        let join = commonAncestor(first, second)
        let (delta, leaving, onFirstSide) = leavingArc(entering, forward: forward, first: first, second: second, join: join)
        if delta > 0 {
            push(delta, along: entering, forward: forward, first: first, second: second, join: join)
        }
        guard leaving >= 0 else { return }
        rehang(from: onFirstSide ? first : second, upTo: leaving, under: onFirstSide ? second : first, by: entering)
    }

    /// Where the tree paths up from `a` and from `b` meet.
    private func commonAncestor(_ a: Int, _ b: Int) -> Int {
        var a = a, b = b
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
        return a
    }

    /// The cycle's room (`delta`) and its leaving arc: the last one of the least room, in the cycle's
    /// order from the join (down to `first`, the entering arc, up from `second`), named by the node
    /// below it (-1: the entering arc itself), and whether that node is on `first`'s side.
    private func leavingArc(_ entering: Int, forward: Bool, first: Int, second: Int, join: Int)
        -> (delta: Int, leaving: Int, onFirstSide: Bool) {
        var delta = Int(forward ? arcs[entering].capacity - arcs[entering].flow : arcs[entering].flow)
        var leaving = -1, onFirstSide = false
        var node = first
        while node != join {
            let arc = arcs[pred[node]], room = Int(up[node] ? arc.flow : arc.capacity - arc.flow)
            if room < delta {
                delta = room
                leaving = node
                onFirstSide = true
            }
            node = parent[node]
        }
        node = second
        while node != join {
            let arc = arcs[pred[node]], room = Int(up[node] ? arc.capacity - arc.flow : arc.flow)
            if room <= delta {
                delta = room
                leaving = node
                onFirstSide = false
            }
            node = parent[node]
        }
        return (delta, leaving, onFirstSide)
    }

    /// Adds `delta` units of flow round the cycle: along the entering arc and the two tree paths.
    private mutating func push(_ delta: Int, along entering: Int, forward: Bool, first: Int, second: Int, join: Int) {
        arcs[entering].flow += Int32(forward ? delta : -delta)
        var node = first
        while node != join {
            arcs[pred[node]].flow += Int32(up[node] ? -delta : delta)
            node = parent[node]
        }
        node = second
        while node != join {
            arcs[pred[node]].flow += Int32(up[node] ? delta : -delta)
            node = parent[node]
        }
    }

    /// The subtree under the leaving arc (below node `leaving`) hangs from the entering arc instead:
    /// the path from `inside`, the entering arc's end in it, up to `leaving` turns round, and
    /// `inside` hangs under `outside`.
    private mutating func rehang(from inside: Int, upTo leaving: Int, under outside: Int, by entering: Int) {
        var path: [(node: Int, pred: Int, up: Bool)] = []
        var node = inside
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
                up[step.node] = Int(arcs[entering].source) == step.node
            } else {
                parent[step.node] = path[index - 1].node
                pred[step.node] = path[index - 1].pred
                up[step.node] = !path[index - 1].up
            }
            attach(step.node, to: parent[step.node])
        }
        updateDepthsAndPotentials(under: inside)
    }

    /// New depths and potentials for `top` and every node under it, from their new parents.
    private mutating func updateDepthsAndPotentials(under top: Int) {
        var stack = [top]
        while let top = stack.popLast() {
            let above = parent[top], arc = pred[top]
            depth[top] = depth[above] + 1
            potential[top] = up[top] ? potential[above] &- arcs[arc].cost : potential[above] &+ arcs[arc].cost
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
