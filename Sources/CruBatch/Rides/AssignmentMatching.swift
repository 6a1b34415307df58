/// A largest assignment of rows to columns, costs aside, and the part of the problem that is short
/// of places.
///
/// It fills each row's first column with room, then looks for an augmenting path (breadth first)
/// from each row left without one. A search that fails marks every row and column it reached as
/// short: those columns are full, and only those rows reach them along alternating paths. Short
/// rows reach only short columns, so any largest assignment fills every short column with short
/// rows and seats every other row in the other columns (the Dulmage-Mendelsohn decomposition). The
/// cheapest largest assignment is therefore the cheapest filling of the short columns plus the
/// cheapest seating of the other rows, each a problem that never has to weigh leaving a row out.
///
/// Nothing reached by a failed search is searched again (no path leads through it to a column with
/// room, and columns never lose their rows), so all the failed searches read each short row's
/// columns once.
struct AssignmentMatching {
    /// Per row, its column in the largest assignment found, -1 for none.
    private(set) var columnOfRow: [Int]
    /// Per row, whether it is short: left out, or reached from a row left out.
    private(set) var shortRows: [Bool]
    /// Per column, whether it is short: full, and reached from a row left out.
    private(set) var shortColumns: [Bool]

    init(_ problem: some AssignmentPricing) {
        let rows = problem.rowCount, capacities = problem.capacities
        columnOfRow = [Int](repeating: -1, count: rows)
        shortRows = [Bool](repeating: false, count: rows)
        shortColumns = [Bool](repeating: false, count: capacities.count)
        var members = [[Int]](repeating: [], count: capacities.count)
        for row in 0..<rows {
            problem.forEachColumn(ofRow: row) { column in
                guard members[column].count < capacities[column] else { return true }
                members[column].append(row)
                columnOfRow[row] = column
                return false
            }
        }

        var rowSearch = [Int](repeating: -1, count: rows), columnSearch = [Int](repeating: -1, count: capacities.count)
        var reachedFrom = [Int](repeating: -1, count: capacities.count)
        var queue: [Int] = [], reachedColumns: [Int] = []
        for start in 0..<rows where columnOfRow[start] < 0 {
            queue = [start]
            reachedColumns.removeAll(keepingCapacity: true)
            rowSearch[start] = start
            var head = 0, room = -1
            while head < queue.count && room < 0 {
                let row = queue[head]
                head += 1
                problem.forEachColumn(ofRow: row) { column in
                    guard !shortColumns[column] && columnSearch[column] != start else { return true }
                    columnSearch[column] = start
                    reachedColumns.append(column)
                    reachedFrom[column] = row
                    if members[column].count < capacities[column] {
                        room = column
                        return false
                    }
                    for member in members[column] where rowSearch[member] != start {
                        rowSearch[member] = start
                        queue.append(member)
                    }
                    return true
                }
            }
            guard room >= 0 else {
                for row in queue { shortRows[row] = true }
                for column in reachedColumns { shortColumns[column] = true }
                continue
            }
            // Each row on the path moves to the column reached from it.
            var column = room
            while true {
                let row = reachedFrom[column], previous = columnOfRow[row]
                if previous >= 0 { members[previous].removeAll { $0 == row } }
                members[column].append(row)
                columnOfRow[row] = column
                if row == start { break }
                column = previous
            }
        }
    }
}
