import ArgumentParser
import CSVStream
import Foundation

/// Reads `--map` values and `--map-file` files, for `import` (TITLE=COLUMN) and `place` (FIELD=TITLE)
/// alike. Each maps a column title of the file to a field, written either way round: the side that
/// names a field is the field (when both do, the one spelt exactly as the field; else the left). One
/// `--map` value may hold several, separated by commas (`--map 'Group Name=name,Leader Email=leaders'`);
/// a comma is part of a title when the text after it holds no `=`. A map file holds one a line (so a
/// title may hold any comma), with blank lines and `#` comments.
enum ColumnMapOption {
    /// One mapping as given, and the line of the map file that gives it (nil: a `--map` value).
    struct Entry {
        let text: String
        var origin: String?

        /// The mapping as messages name it: `--map Group Name=name` or `forms.map:3: Full Name=...`.
        var label: String { origin.map { "\($0): \(text)" } ?? "--map \(text)" }
    }

    /// The mappings of `--map` values: each split at commas followed by another mapping.
    static func entries(_ values: [String]) -> [Entry] {
        values.flatMap(split).map { Entry(text: $0) }
    }

    /// The mappings of a map file, one a line.
    static func entries(ofFile path: String) throws -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--map-file \(path): no such file, or it cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("--map-file \(path): not UTF-8 text; save it again as UTF-8")
        }
        // "\r\n" is one Character, so lines are split at any line end, not at "\n" alone.
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap { index, line in
            // Windows Notepad starts a UTF-8 file with a byte-order mark, which is no part of a title.
            let entry = line.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(["\u{FEFF}"]))
            return entry.isEmpty || entry.hasPrefix("#") ? nil : Entry(text: entry, origin: "\(path):\(index + 1)")
        }
    }

    /// `entries` as field -> title. `field` finds the field a word names (nil: none); `name` is the
    /// field's own spelling; `fields` lists them for messages; `example` shows one mapping.
    static func parse<Field: Hashable>(_ entries: [Entry], field: (String) -> Field?, name: (Field) -> String,
                                       fields: String, example: String) throws -> [Field: String] {
        var map: [Field: String] = [:]
        for entry in entries {
            let item = entry.text
            guard let equals = item.firstIndex(of: "=") else {
                throw ValidationError((entry.origin.map { "\($0): " } ?? "")
                    + "--map takes TITLE=FIELD or FIELD=TITLE, e.g. --map \(example) (got \"\(item)\")")
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
                throw ValidationError("\(entry.label): neither \"\(left)\" nor \"\(right)\" is a field; fields: \(fields)")
            }
            guard !mapping.1.isEmpty else { throw ValidationError("\(entry.label): give the column title too") }
            if map[mapping.0] != nil { throw ValidationError("\(entry.label): \(name(mapping.0)) is mapped twice") }
            map[mapping.0] = mapping.1
        }
        return map
    }

    /// The mappings of one `--map` value: split at commas followed by another mapping.
    private static func split(_ value: String) -> [String] {
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
