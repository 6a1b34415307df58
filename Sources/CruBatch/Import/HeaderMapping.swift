import CSVStream

/// Which file column feeds which column of a kind, decided from the header row.
struct HeaderMapping {
    /// For each of the spec's columns, the 0-based index of the file column holding it.
    let indexes: [Int?]
    /// Warnings for columns the kind does not know.
    let warnings: [Diagnostic]
    /// The spec columns that an `--map` title fed in this file (`FullName.mapping` for a split).
    let mappedColumns: Set<String>
    /// The file column holding whole names that `--map 'TITLE=first_name+last_name'` splits: both
    /// first_name and last_name point at it.
    let nameSplit: Int?

    /// Columns that a CSV rejects file adds.
    static let rejectColumns = ["error_line", "error_code", "error_message"]
    /// The column that a rejects workbook adds.
    static let workbookErrorsColumn = "errors"
    /// What a rejects file adds, as `TableHeader.normalizedName` has it: importing a fixed rejects file ignores them.
    static let ignoredColumns = Set((rejectColumns + [workbookErrorsColumn]).map(TableHeader.normalizedName))

    /// Matches `overrides` (spec column -> header title, from `--map`; `first_name+last_name` splits
    /// the title's whole names) first, then names case-insensitively, ignoring spaces, `_` and `-`,
    /// and through aliases. An override whose column this kind lacks or whose title this header lacks
    /// is left for another file of the load. Throws `missing-column` (`MissingColumns` says what the
    /// `sheet` or file has and what would load it) or `duplicate-header` (two names for one column).
    init(header: [String], spec: KindSpec, file: String, sheet: String? = nil,
         overrides: [String: String] = [:]) throws(Diagnostic) {
        var indexes = [Int?](repeating: nil, count: spec.columns.count)
        var mapped = Set<String>()
        var nameSplit: Int?
        for (name, title) in overrides.sorted(by: { $0.key < $1.key }) {
            let wanted = TableHeader.normalizedName(title)
            let targets = name == FullName.mapping ? ["first_name", "last_name"] : [name]
            let columns = targets.compactMap { target in spec.columns.firstIndex { $0.name == target } }
            guard columns.count == targets.count,
                  let position = header.indices.first(where: {
                      !indexes.contains($0) && TableHeader.normalizedName(header[$0]) == wanted
                  }) else { continue }
            for column in columns { indexes[column] = position }
            if columns.count > 1 { nameSplit = position }
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
            let splittable = open.contains { $0.name == "first_name" } && open.contains { $0.name == "last_name" }
            throw MissingColumns(header: header, missing: missing.map(\.name), likely: likely.compactMapValues { $0?.name },
                                 wholeName: splittable ? Self.wholeNameColumn(in: header, among: unmatched, likely: likely) : nil)
                .diagnostic(file: file, sheet: sheet)
        }
        self.indexes = indexes
        self.mappedColumns = mapped
        self.nameSplit = nameSplit
    }

    /// The 1-based file column of a spec column, for diagnostics.
    func fileColumn(of name: String, in spec: KindSpec) -> Int? {
        spec.columns.firstIndex { $0.name == name }.flatMap { indexes[$0] }.map { $0 + 1 }
    }

    /// The column a header that matched nothing most likely means, among `candidates`: the first of
    /// its words, past the kind's own noun, that names a column or is a one-word alias of one (`Group
    /// Name` in groups is name, `Leader Email` is leaders, `What year are you in school?` is
    /// school_year), else the column whose name is a typo away (`Emial` is email).
    static func likelyColumn(for header: String, of spec: KindSpec, among candidates: [ColumnSpec]) -> ColumnSpec? {
        let words = NameWords.words(of: header).filter { $0 != spec.kind.rawValue && $0 != spec.kind.noun }
        for word in words {
            if let column = candidates.first(where: {
                $0.name == word || Kind.singular(of: $0.name) == word || $0.matchKeys.contains(word)
            }) {
                return column
            }
        }
        let key = TableHeader.normalizedName(header)
        return Suggestion.closest(to: key, among: candidates.flatMap(\.matchKeys)).flatMap { match in
            candidates.first { $0.matchKeys.contains(match) }
        }
    }

    /// The first header among `unmatched` that names a person's whole name (`Full Name`, `Contact
    /// Name`, `Name`): a word `name`, and no other column it looks like.
    private static func wholeNameColumn(in header: [String], among unmatched: [Int], likely: [Int: ColumnSpec?]) -> Int? {
        unmatched.first { position in
            likely[position].flatMap { $0 } == nil && NameWords.words(of: header[position]).contains("name")
        }
    }
}
