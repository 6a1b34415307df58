import CSVStream
import FileOutput
import Foundation
import MessageTemplates

/// A run's report as one self-contained HTML page (`--report FILE.html`): styles inline, no script,
/// nothing fetched, so it opens from an email attachment. It holds the summary, the problems grouped
/// by code with their hints and counts, the file's bad rows with each bad cell marked and its
/// message beside it, and the changes. Rendered by `HTMLReportTemplate` with HTML escaping on:
/// every value, from a file or the database, stays text.
public struct HTMLReport {
    /// A file's bad rows under its header.
    struct BadRows {
        let file: String
        let header: [String]
        var rows: [RejectedRow] = []
        /// The bad rows past `rowsShown`, counted, not kept.
        var more = 0
        /// Where every bad row is, when more were bad than the page shows.
        var rejectsFile: String?

        /// Keeps `row` while the page has room for it, else counts it.
        mutating func add(_ row: RejectedRow) {
            if rows.count < HTMLReport.rowsShown { rows.append(row) } else { more += 1 }
        }
    }

    /// What a run changes in one kind, for the changes section.
    struct Changes {
        let kind: String
        var inserted: [String] = []
        var updated: [RowChange] = []
        var restored: [RowChange] = []
        var archived: [String] = []
    }

    var title: String
    var verdict: String
    /// True when the run failed or rejected rows (the verdict is shown as a problem).
    var failed: Bool
    var summary: (headers: [String], rows: [[String]])
    var diagnostics: [Diagnostic] = []
    var badRows: [BadRows] = []
    var changes: [Changes] = []
    /// Sentences on what follows (memberships ended, messages queued).
    var notes: [String] = []
    /// When the run was.
    var date = Date()

    /// How many messages of one code the page lists before `... and N more`.
    static let messagesPerCode = 50
    /// How many bad rows of one file the page shows: a page a browser opens, whatever the file.
    static let rowsShown = 1_000

    /// Writes the page to `path` (mode 0600: it may hold the file's personal data).
    func write(to path: String) throws {
        let file = try OutputFile(try OutputTarget(path))
        try file.write(Array(render().utf8))
        try file.commit()
    }

    func render() -> String {
        HTMLReportTemplate.page.render(values)
    }

    private var values: [String: Any] {
        let formatter = ISO8601DateFormatter()
        return [
            "title": title, "verdict": verdict, "failed": failed, "date": formatter.string(from: date),
            "version": CruBatchVersion.current,
            "summary_headers": summary.headers, "summary_rows": summary.rows.map { ["cells": $0] },
            "codes": codeGroups, "has_codes": !diagnostics.isEmpty,
            "sheets": badRows.filter { !$0.rows.isEmpty }.map(sheetValues),
            "changes": changes.filter { !($0.inserted.isEmpty && $0.updated.isEmpty && $0.restored.isEmpty && $0.archived.isEmpty) }
                .map(changeValues),
            "notes": notes, "has_notes": !notes.isEmpty,
        ]
    }

    /// The problems grouped by severity and code, errors first, each with its count, hints and
    /// messages; counted in one pass that keeps only what the page shows.
    private var codeGroups: [[String: Any]] {
        struct Group {
            let first: Diagnostic
            var count = 0
            var hints: [String] = []
            var messages: [String] = []
        }
        var groups: [String: Group] = [:]
        for diagnostic in diagnostics {
            let key = "\(diagnostic.severity == .error ? 0 : 1) \(diagnostic.code.rawValue)"
            var group = groups.removeValue(forKey: key) ?? Group(first: diagnostic)
            group.count += 1
            if let hint = diagnostic.hint, group.hints.count < 5, !group.hints.contains(hint) { group.hints.append(hint) }
            if group.messages.count < Self.messagesPerCode { group.messages.append("\(diagnostic.location): \(diagnostic.message)") }
            groups[key] = group
        }
        return groups.keys.sorted().map { key in
            let group = groups[key]!
            return [
                "code": group.first.code.rawValue, "severity": group.first.severity.rawValue, "count": group.count,
                "hints": group.hints, "messages": group.messages,
                "more": group.count > Self.messagesPerCode ? "... and \(group.count - Self.messagesPerCode) more" : "",
            ]
        }
    }

    private func sheetValues(_ sheet: BadRows) -> [String: Any] {
        let more = sheet.more == 0 ? ""
            : "... and \(sheet.more) more bad row\(sheet.more == 1 ? "" : "s"), "
                + (sheet.rejectsFile.map { "every bad row with its errors in \($0)" } ?? "every bad row with its errors in the file --rejects FILE writes")
        return [
            "file": sheet.file, "header": sheet.header, "more": more,
            "rows": sheet.rows.map { row -> [String: Any] in
                var byCell: [Int: [Diagnostic]] = [:]
                for (diagnostic, cell) in row.errors { if let cell { byCell[cell, default: []].append(diagnostic) } }
                let cells = row.cells.enumerated().map { index, value -> [String: Any] in
                    guard let errors = byCell[index] else { return ["value": value, "bad": false] }
                    return ["value": value, "bad": true, "code": errors[0].code.rawValue,
                            "messages": errors.map { $0.message + ($0.hint.map { " (\($0))" } ?? "") }]
                }
                let rowErrors = row.errors.filter { $0.cell == nil }.map { "\($0.diagnostic.code.rawValue): \($0.diagnostic.message)" }
                return ["line": row.line, "cells": cells, "row_errors": rowErrors]
            },
        ]
    }

    /// Where the rejected rows go when the page cannot show them all and no `--rejects` file was
    /// asked for: beside the page (`preview.html` -> `preview-rejects.csv`).
    static func overflowRejectsPath(beside page: String) -> String {
        (page.lowercased().hasSuffix(".html") ? String(page.dropLast(5)) : page) + "-rejects.csv"
    }

    private func changeValues(_ changes: Changes) -> [String: Any] {
        func fields(_ rows: [RowChange]) -> [[String: Any]] {
            rows.flatMap { row in
                row.fields.enumerated().map { index, field in
                    ["key": index == 0 ? row.key : "", "column": field.column, "old": field.old ?? "", "new": field.new ?? ""]
                }
            }
        }
        return [
            "kind": changes.kind, "inserted": changes.inserted, "has_inserted": !changes.inserted.isEmpty,
            "updated": fields(changes.updated), "has_updated": !changes.updated.isEmpty,
            "restored": changes.restored.map(\.key), "has_restored": !changes.restored.isEmpty,
            "archived": changes.archived, "has_archived": !changes.archived.isEmpty,
        ]
    }
}
