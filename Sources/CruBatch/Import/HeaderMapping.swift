import CSVStream

/// Which file column feeds which column of a kind, decided from the header row.
struct HeaderMapping {
    /// For each of the spec's columns, the 0-based index of the file column holding it.
    let indexes: [Int?]
    /// Warnings for columns the kind does not know.
    let warnings: [Diagnostic]
    /// The spec columns that an `--map` title fed in this file.
    let mappedColumns: Set<String>

    /// Columns that a CSV rejects file adds.
    static let rejectColumns = ["error_line", "error_code", "error_message"]
    /// The column that a rejects workbook adds.
    static let workbookErrorsColumn = "errors"
    /// What a rejects file adds, as `TableHeader.normalizedName` has it: importing a fixed rejects file ignores them.
    static let ignoredColumns = Set((rejectColumns + [workbookErrorsColumn]).map(TableHeader.normalizedName))

    /// Matches `overrides` (spec column -> header title, from `--map`) first, then names
    /// case-insensitively, ignoring spaces, `_` and `-`, and through aliases. An override whose
    /// column this kind lacks or whose title this header lacks is left for another file of the load.
    /// Throws `missing-column` (naming every missing one, and the headers that look like them) or
    /// `duplicate-header` (two names for one column).
    init(header: [String], spec: KindSpec, file: String, overrides: [String: String] = [:]) throws(Diagnostic) {
        var indexes = [Int?](repeating: nil, count: spec.columns.count)
        var mapped = Set<String>()
        for (name, title) in overrides.sorted(by: { $0.key < $1.key }) {
            let wanted = TableHeader.normalizedName(title)
            guard let column = spec.columns.firstIndex(where: { $0.name == name }),
                  let position = header.indices.first(where: {
                      !indexes.contains($0) && TableHeader.normalizedName(header[$0]) == wanted
                  }) else { continue }
            indexes[column] = position
            mapped.insert(name)
        }
        let ignored = Self.ignoredColumns
        var unmatched: [Int] = []
        for (position, name) in header.enumerated() where !indexes.contains(position) {
            let key = TableHeader.normalizedName(name)
            guard let column = spec.columns.firstIndex(where: { $0.matchKeys.contains(key) }) else {
                if !ignored.contains(key) { unmatched.append(position) }
                continue
            }
            if let earlier = indexes[column] {
                throw Diagnostic(file: file, line: 1, column: position + 1, code: .duplicateHeader,
                                 message: "columns \"\(header[earlier])\" and \"\(name)\" both mean \(spec.columns[column].name)",
                                 hint: "delete one of them")
            }
            indexes[column] = position
        }
        let open = spec.columns.indices.filter { indexes[$0] == nil }.map { spec.columns[$0] }
        let likely = Dictionary(uniqueKeysWithValues: unmatched.map { position in
            (position, Self.likelyColumn(for: header[position], of: spec, among: open))
        })
        self.warnings = unmatched.map { position in
            let name = header[position]
            let hint = likely[position]!.map { "did you mean \($0.name)? rename the column, or add --map '\(name)=\($0.name)'" }
                ?? "known columns: \(spec.columns.map(\.name).joined(separator: ", "))"
            return Diagnostic(file: file, line: 1, column: position + 1, code: .unknownColumn,
                              message: "column \"\(name)\" is not part of \(spec.kind.rawValue) and is ignored", hint: hint)
        }
        let missing = open.filter(\.required)
        if !missing.isEmpty {
            let names = missing.map(\.name)
            let lookalikes = unmatched.compactMap { position -> (header: String, letter: String, column: String)? in
                guard let column = likely[position]!, names.contains(column.name) else { return nil }
                return (header[position], Diagnostic.columnLetters(position + 1), column.name)
            }
            let hint = lookalikes.isEmpty
                ? "\(spec.kind.fileName) needs: \(spec.requiredColumns.map(\.name).joined(separator: ", "))"
                : lookalikes.map { "column \($0.letter) \"\($0.header)\" looks like \($0.column)" }.joined(separator: ", ")
                    + ": rename \(lookalikes.count == 1 ? "it" : "them"), or add --map '"
                    + lookalikes.map { "\($0.header)=\($0.column)" }.joined(separator: ",") + "'"
            throw Diagnostic(file: file, line: 1, code: .missingColumn,
                             message: "required column\(names.count > 1 ? "s" : "") \(names.map { "\"\($0)\"" }.joined(separator: ", ")) missing",
                             hint: hint)
        }
        self.indexes = indexes
        self.mappedColumns = mapped
    }

    /// The 1-based file column of a spec column, for diagnostics.
    func fileColumn(of name: String, in spec: KindSpec) -> Int? {
        spec.columns.firstIndex { $0.name == name }.flatMap { indexes[$0] }.map { $0 + 1 }
    }

    /// The column a header that matched nothing most likely means, among `candidates`: the first of
    /// its words, past the kind's own noun, that names a column (`Group Name` in groups is name,
    /// `Leader Email` is leaders), else the column whose name is a typo away (`Emial` is email).
    static func likelyColumn(for header: String, of spec: KindSpec, among candidates: [ColumnSpec]) -> ColumnSpec? {
        let words = NameWords.words(of: header).filter { $0 != spec.kind.rawValue && $0 != spec.kind.noun }
        for word in words {
            if let column = candidates.first(where: { $0.name == word || Kind.singular(of: $0.name) == word }) {
                return column
            }
        }
        let key = TableHeader.normalizedName(header)
        return Suggestion.closest(to: key, among: candidates.flatMap(\.matchKeys)).flatMap { match in
            candidates.first { $0.matchKeys.contains(match) }
        }
    }
}
