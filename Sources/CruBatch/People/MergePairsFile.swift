import CSVStream
import Foundation
import SpreadsheetReader

extension PeopleMerge {
    /// The pairs of a reviewed copy of `people duplicates --format csv` (or a sheet with the same
    /// columns): `keep_email` and `drop_email` (or `keep` and `drop`) on each row; the other columns
    /// (score, names, reasons) are read past. Throws `CruBatchError.unreadable` naming the line.
    public static func pairs(fromFile path: String) throws -> [Pair] {
        guard FileManager.default.fileExists(atPath: path) else { throw CruBatchError.fileNotFound(path) }
        let table = try TableFile.open(path: path, options: CSVReader.Options(displayName: path))
        let names = table.header.map(TableHeader.normalizedName)
        func column(_ title: String, or short: String) throws -> Int {
            guard let index = names.firstIndex(where: { $0 == TableHeader.normalizedName(title) || $0 == short }) else {
                throw CruBatchError.unreadable("\(path):1: a pairs file needs the column \"\(title)\" "
                    + "(the columns of people duplicates --format csv)")
            }
            return index
        }
        let columns = [(title: "keep_email", index: try column("keep_email", or: "keep")),
                       (title: "drop_email", index: try column("drop_email", or: "drop"))]
        var pairs: [Pair] = []
        do {
            while let row = try table.next() {
                let cells = columns.map { row.cells.indices.contains($0.index) ? row.cells[$0.index] : "" }
                if let blank = columns.indices.first(where: { cells[$0].isEmpty }) {
                    throw CruBatchError.unreadable("\(path):\(row.line):\(columns[blank].index + 1): "
                        + "\(columns[blank].title) is empty: give both keep_email and drop_email, or delete the row")
                }
                pairs.append(Pair(keep: cells[0], drop: cells[1], location: "\(path):\(row.line)"))
            }
        } catch let diagnostic as Diagnostic {
            throw CruBatchError.unreadable(diagnostic.rendered)
        }
        return pairs
    }
}
