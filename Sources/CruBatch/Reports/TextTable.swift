/// An aligned plain-text table, as every text report prints one: a header row, then rows, columns
/// separated by two spaces, each column left- or right-aligned, trailing spaces trimmed. The last
/// column may be left unpadded (free text that would otherwise widen every line).
struct TextTable {
    enum Alignment {
        case left, right
    }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []
    /// When true the last column is printed as it is, not padded to its width.
    var freeLastColumn = false
    /// The narrowest each column may be (so a column of small numbers keeps a steady width).
    var minimumWidths: [Int]

    init(headers: [String], alignments: [Alignment], freeLastColumn: Bool = false, minimumWidths: [Int] = []) {
        self.headers = headers
        self.alignments = alignments
        self.freeLastColumn = freeLastColumn
        self.minimumWidths = minimumWidths
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The header line and one line per row.
    var lines: [String] {
        let all = [headers] + rows
        // Counting a cell's characters walks its graphemes: each is counted once.
        let counts = all.map { $0.map(\.count) }
        let widths = headers.indices.map { column in
            max(counts.map { $0[column] }.max() ?? 0, minimumWidths.indices.contains(column) ? minimumWidths[column] : 0)
        }
        // Each line is built in one buffer of bytes: reports of 10,000 rows are printed whole.
        let space = UInt8(ascii: " ")
        var line: [UInt8] = []
        return zip(all, counts).map { cells, counts in
            line.removeAll(keepingCapacity: true)
            for column in cells.indices {
                if column > 0 { line += [space, space] }
                let free = freeLastColumn && column == cells.count - 1
                let spaces = repeatElement(space, count: free ? 0 : max(0, widths[column] - counts[column]))
                if alignments[column] == .right { line += spaces }
                line += cells[column].utf8
                if alignments[column] == .left { line += spaces }
            }
            // A space byte is always a whole character.
            while line.last == space { line.removeLast() }
            return String(decoding: line, as: UTF8.self)
        }
    }

    var text: String { lines.joined(separator: "\n") }
}
