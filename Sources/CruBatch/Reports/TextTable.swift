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
        // Each line is built in one string: reports of 10,000 rows are printed whole.
        return zip(all, counts).map { cells, counts in
            var line = ""
            for column in cells.indices {
                if column > 0 { line += "  " }
                let free = freeLastColumn && column == cells.count - 1
                let padding = free ? 0 : max(0, widths[column] - counts[column])
                let spaces = padding > 0 ? String(repeating: " ", count: padding) : ""
                line += alignments[column] == .right ? spaces + cells[column] : cells[column] + spaces
            }
            return line.trimmingTrailingSpaces()
        }
    }

    var text: String { lines.joined(separator: "\n") }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return String(self[..<end])
    }
}
