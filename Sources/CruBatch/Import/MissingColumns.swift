import CSVStream
import Foundation

/// The `missing-column` error of a header that lacks required columns, written for the person who
/// renames them: the columns the sheet (or file) has, the closest of them to each missing one (a
/// whole name that `--map` splits into first_name and last_name), and the `--map` line that loads it,
/// with every column it has that looks like a column of the kind.
struct MissingColumns {
    /// The header as written.
    let header: [String]
    /// The required columns no header matched, in the kind's order.
    let missing: [String]
    /// The column of the kind that each unmatched header (by position) looks like.
    let likely: [Int: String]
    /// The header holding whole names, when no header is first_name or last_name.
    let wholeName: Int?

    func diagnostic(file: String, sheet: String?) -> Diagnostic {
        let listed = header.enumerated().map { "\(Self.cell($0.offset)) \"\($0.element)\"" }.joined(separator: ", ")
        let names = missing.map { "\"\($0)\"" }.joined(separator: ", ")
        let message =
            "required column\(missing.count > 1 ? "s" : "") \(names) missing; "
            + "the \(sheet == nil ? "file" : "sheet") has \(header.count == 1 ? "one column" : "columns") \(listed)"
        return Diagnostic(
            file: file, sheet: sheet, line: 1, code: .missingColumn, message: message,
            hint: hint)
    }

    private var hint: String {
        let split = wholeName
        let splitsMissing = split != nil && missing.contains("first_name") && missing.contains("last_name")
        var closest: [String] = []
        var absent: [String] = []
        if let split, splitsMissing {
            closest.append("first_name and last_name: \(quoted(split)), a whole name to split")
        }
        for column in missing where !splitsMissing || (column != "first_name" && column != "last_name") {
            if let position = likely.filter({ $0.value == column }).keys.min() {
                closest.append("\(column): \(quoted(position))")
            } else {
                absent.append(column)
            }
        }
        let entries =
            (split.map { ["\(header[$0])=\(FullName.mapping)"] } ?? [])
            + likely.keys.sorted().filter { $0 != split }.map { "\(header[$0])=\(likely[$0]!)" }
        let map = "--map " + Self.shellQuoted(entries.joined(separator: ","))
        let named = absent.count == 1 ? "a column \(absent[0])" : "columns " + absent.joined(separator: ", ")
        switch (closest.isEmpty, absent.isEmpty) {
        case (true, _):
            return "no column looks like \(missing.joined(separator: ", ")): add \(named)"
                + (entries.isEmpty ? "" : "; \(map) reads the others")
        case (false, true):
            let rename =
                splitsMissing ? "Load it" : closest.count == 1 ? "Rename it, or load it" : "Rename them, or load it"
            return "closest: " + closest.joined(separator: "; ") + ". \(rename) with \(map)"
        case (false, false):
            return "closest: " + (closest + absent.map { "\($0): none" }).joined(separator: "; ")
                + ". Add \(named); then \(map) loads it"
        }
    }

    /// `C "Group Name"`: a header by its column letters.
    private func quoted(_ position: Int) -> String { "\(Self.cell(position)) \"\(header[position])\"" }

    private static func cell(_ position: Int) -> String { Diagnostic.columnLetters(position + 1) }

    /// Text a shell reads back as it is, in single quotes (a quote inside as `'\''`).
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
