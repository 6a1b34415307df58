import CSVStream

/// The rows a load has refused so far, by the table their key would have named a row of, and that
/// key (lower case): a later row of the load that names one of them is told it was refused above,
/// and why, instead of that it does not exist.
struct RefusedRows: Sendable {
    private var notes: [String: [String: Diagnostic.Note]] = [:]

    /// Records that the row keyed `key` of `table` was refused, for the reason `note` gives.
    mutating func add(table: String, key: String, note: Diagnostic.Note) {
        notes[table, default: [:]][key.lowercased()] = notes[table]?[key.lowercased()] ?? note
    }

    /// Why the row keyed `key` of `table` was refused, if it was.
    func note(table: String, key: String) -> Diagnostic.Note? {
        notes[table]?[key.lowercased()]
    }

    /// The refused keys of `table`, lower case.
    func keys(of table: String) -> [String] {
        notes[table].map { Array($0.keys) } ?? []
    }
}
