import CSVStream

/// Which file column feeds which column of a kind, decided from the header row.
struct HeaderMapping {
    /// For each of the spec's columns, the 0-based index of the file column holding it.
    let indexes: [Int?]
    /// Warnings for columns the kind does not know.
    let warnings: [Diagnostic]

    /// Columns that a rejects file adds; importing a fixed rejects file ignores them.
    static let rejectColumns = ["error_line", "error_code", "error_message"]

    /// Matches names case-insensitively, ignoring spaces, `_` and `-`, and through aliases.
    /// Throws `missing-column` (naming every missing one) or `duplicate-header` (two names for one column).
    init(header: [String], spec: KindSpec, file: String) throws(Diagnostic) {
        var indexes = [Int?](repeating: nil, count: spec.columns.count)
        var warnings: [Diagnostic] = []
        let ignored = Set(Self.rejectColumns.map(TableHeader.normalizedName))
        for (position, name) in header.enumerated() {
            let key = TableHeader.normalizedName(name)
            guard let column = spec.columns.firstIndex(where: { $0.matchKeys.contains(key) }) else {
                if !ignored.contains(key) {
                    let known = spec.columns.map(\.name)
                    warnings.append(Diagnostic(
                        file: file, line: 1, column: position + 1, code: .unknownColumn,
                        message: "column \"\(name)\" is not part of \(spec.kind.rawValue) and is ignored",
                        hint: Suggestion.closest(to: key, among: known).map { "did you mean \"\($0)\"?" }
                            ?? "known columns: \(known.joined(separator: ", "))"))
                }
                continue
            }
            if let earlier = indexes[column] {
                throw Diagnostic(file: file, line: 1, column: position + 1, code: .duplicateHeader,
                                 message: "columns \"\(header[earlier])\" and \"\(name)\" both mean \(spec.columns[column].name)",
                                 hint: "delete one of them")
            }
            indexes[column] = position
        }
        let missing = spec.columns.indices.filter { spec.columns[$0].required && indexes[$0] == nil }
        if !missing.isEmpty {
            let names = missing.map { spec.columns[$0].name }
            throw Diagnostic(file: file, line: 1, code: .missingColumn,
                             message: "required column\(names.count > 1 ? "s" : "") \(names.map { "\"\($0)\"" }.joined(separator: ", ")) missing",
                             hint: "\(spec.kind.fileName) needs: \(spec.requiredColumns.map(\.name).joined(separator: ", "))")
        }
        self.indexes = indexes
        self.warnings = warnings
    }

    /// The 1-based file column of a spec column, for diagnostics.
    func fileColumn(of name: String, in spec: KindSpec) -> Int? {
        spec.columns.firstIndex { $0.name == name }.flatMap { indexes[$0] }.map { $0 + 1 }
    }
}
