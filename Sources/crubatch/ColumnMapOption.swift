import ArgumentParser
import CSVStream

/// Reads `--map` values, for `import` (TITLE=COLUMN) and `place` (FIELD=TITLE) alike. Each maps a
/// column title of the file to a field, written either way round: the side that names a field is the
/// field (when both do, the one spelt exactly as the field; else the left). One value may hold several,
/// separated by commas (`--map 'Group Name=name,Leader Email=leaders'`); a comma is part of a title
/// when the text after it holds no `=`.
enum ColumnMapOption {
    /// `values` as field -> title. `field` finds the field a word names (nil: none); `name` is the
    /// field's own spelling; `fields` lists them for messages; `example` shows one mapping.
    static func parse<Field: Hashable>(_ values: [String], field: (String) -> Field?, name: (Field) -> String,
                                       fields: String, example: String) throws -> [Field: String] {
        var map: [Field: String] = [:]
        for item in values.flatMap(entries) {
            guard let equals = item.firstIndex(of: "=") else {
                throw ValidationError("--map takes TITLE=FIELD or FIELD=TITLE, e.g. --map \(example) (got \"\(item)\")")
            }
            let left = String(item[..<equals]).trimmingCharacters(in: .whitespaces)
            let right = String(item[item.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            func exact(_ text: String, _ field: Field) -> Bool {
                TableHeader.normalizedName(text) == TableHeader.normalizedName(name(field))
            }
            let mapping: (Field, String)
            switch (field(left), field(right)) {
            case (let leftField?, let rightField?):
                mapping = exact(right, rightField) && !exact(left, leftField) ? (rightField, left) : (leftField, right)
            case (let leftField?, nil): mapping = (leftField, right)
            case (nil, let rightField?): mapping = (rightField, left)
            case (nil, nil):
                throw ValidationError("--map \(item): neither \"\(left)\" nor \"\(right)\" is a field; fields: \(fields)")
            }
            guard !mapping.1.isEmpty else { throw ValidationError("--map \(item): give the column title too") }
            if map[mapping.0] != nil { throw ValidationError("--map: \(name(mapping.0)) is mapped twice") }
            map[mapping.0] = mapping.1
        }
        return map
    }

    /// The mappings of one `--map` value: split at commas followed by another mapping.
    private static func entries(_ value: String) -> [String] {
        var entries: [String] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if let last = entries.last, !(last.contains("=") && piece.contains("=")) {
                entries[entries.count - 1] = last + "," + piece
            } else {
                entries.append(piece)
            }
        }
        return entries.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
