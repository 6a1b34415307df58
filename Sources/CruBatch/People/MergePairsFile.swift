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
        func column(_ wanted: [String]) throws -> Int {
            guard let index = names.firstIndex(where: wanted.contains) else {
                throw CruBatchError.unreadable("\(path):1: a pairs file needs the column \"\(wanted[0] == "keepemail" ? "keep_email" : "drop_email")\" "
                    + "(the columns of people duplicates --format csv)")
            }
            return index
        }
        let (keep, drop) = (try column(["keepemail", "keep"]), try column(["dropemail", "drop"]))
        var pairs: [Pair] = []
        do {
            while let row = try table.next() {
                let cells = (row.cells.indices.contains(keep) ? row.cells[keep] : "",
                             row.cells.indices.contains(drop) ? row.cells[drop] : "")
                guard !cells.0.isEmpty, !cells.1.isEmpty else {
                    throw CruBatchError.unreadable("\(path):\(row.line): give both keep_email and drop_email")
                }
                pairs.append(Pair(keep: cells.0, drop: cells.1))
            }
        } catch let diagnostic as Diagnostic {
            throw CruBatchError.unreadable(diagnostic.rendered)
        }
        return pairs
    }
}
