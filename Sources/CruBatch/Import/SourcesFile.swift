import CSVStream
import Foundation
import SpreadsheetReader

/// A sources file (`import --sources sources.csv`, or an .xlsx sheet): one row per source staff
/// keep elsewhere, with columns `kind`, `source` (a URL or a path, relative to the file's folder)
/// and the options of that source alone: `sync` (yes/no), `scope` (campus=CODE or ministry=CODE,
/// with sync), `sheet` (of a workbook or a Google Sheet), `map` (as `--map`), and for a calendar
/// `campus` or `ministry` (whose events it holds, as `--campus` and `--ministry`). Its sources are
/// loaded like `--dir`'s: in dependency order, in one transaction.
public struct SourcesFile {
    /// One row: the source, and its `map` cell as written (read as `--map` by the caller).
    public struct Entry: Sendable {
        public var source: Importer.Source
        public var map: String?
        /// Where the row is, for messages about its `map` cell: `sources.csv:3:5`.
        public var mapLocation: String
    }

    static let columns = ["kind", "source", "sync", "scope", "sheet", "map", "campus", "ministry"]
    private static let aliases = ["url": "source", "file": "source", "path": "source", "link": "source"]

    /// The rows of the sources file at `path`; throws `CruBatchError.unreadable` naming the file,
    /// line and column of a cell it cannot read.
    public static func read(_ path: String) throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { throw CruBatchError.fileNotFound(path) }
        let table = try TableFile.open(path: path, options: CSVReader.Options(displayName: path))
        var index: [String: Int] = [:]
        for (position, title) in table.header.enumerated() {
            let name = TableHeader.normalizedName(title)
            let column = aliases[name] ?? name
            guard columns.contains(column) else {
                throw CruBatchError.unreadable(
                    "\(path):1:\(position + 1): a sources file has no column \"\(title)\"; its columns are \(columns.joined(separator: ", "))")
            }
            index[column] = position
        }
        for required in ["kind", "source"] where index[required] == nil {
            throw CruBatchError.unreadable("\(path):1: a sources file needs the column \"\(required)\"")
        }
        let folder = (path as NSString).deletingLastPathComponent
        var entries: [Entry] = []
        do {
            while let row = try table.next() {
                entries.append(try entry(row, index: index, folder: folder, path: path))
            }
        } catch let diagnostic as Diagnostic {
            throw CruBatchError.unreadable(diagnostic.rendered)
        }
        guard !entries.isEmpty else { throw CruBatchError.unreadable("\(path): lists no source") }
        return entries
    }

    private static func entry(_ row: TableRow, index: [String: Int], folder: String, path: String) throws -> Entry {
        func cell(_ column: String) -> String? {
            guard let position = index[column], position < row.cells.count else { return nil }
            let text = row.cells[position].trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        func problem(_ column: String, _ message: String) -> CruBatchError {
            .unreadable("\(path):\(row.line):\((index[column] ?? 0) + 1): \(message)")
        }
        guard let kindText = cell("kind"), let kind = Kind(rawValue: kindText.lowercased()) else {
            throw problem("kind", "kind must be one of \(Kind.acceptedList) (got \"\(cell("kind") ?? "")\")")
        }
        guard let given = cell("source") else { throw problem("source", "give the URL or the path of the \(kind.rawValue)") }
        let isPath = RemoteLocation(given) == nil
        var source = Importer.Source(kind: kind, path: isPath && !given.hasPrefix("/") && !folder.isEmpty
                                     ? folder + "/" + given : given)
        source.sheet = cell("sheet")
        let sync: Bool
        switch cell("sync").map(Vocabulary.bool.value(of:)) {
        case nil: sync = false
        case .some(let value?): sync = value == "true"
        case .some(nil): throw problem("sync", "sync is yes or no (got \"\(cell("sync") ?? "")\")")
        }
        if let scope = cell("scope") {
            guard sync else { throw problem("scope", "a scope goes with sync: yes") }
            guard let parsed = SyncScope(argument: scope) else {
                throw problem("scope", "scope takes campus=CODE or ministry=CODE (got \"\(scope)\")")
            }
            source.sync = parsed
        } else if sync {
            source.sync = .everything
        }
        switch (cell("campus"), cell("ministry")) {
        case (let campus?, nil): source.eventOwner = .campus(campus.lowercased())
        case (nil, let ministry?): source.eventOwner = .ministry(ministry.lowercased())
        case (nil, nil): break
        case (_?, _?): throw problem("ministry", "give the campus or the ministry whose events these are, not both")
        }
        return Entry(source: source, map: cell("map"), mapLocation: "\(path):\(row.line):\((index["map"] ?? 0) + 1)")
    }
}

extension Vocabulary {
    /// The stored value a spelling of this vocabulary means, or nil.
    func value(of text: String) -> String? {
        let key = Vocabulary.key(text)
        return Vocabulary.table[self]?.first { $0.spellings.contains { Vocabulary.key($0) == key } }?.value
    }
}
