extension HTMLReport {
    /// The page of an import or validation: its summary and verdict, its problems, the bad rows of
    /// each file (read again), and what it changes or would change. Personal data appears only as
    /// the file has it: a personal column's stored value is not shown, and what follows from the
    /// load is counted, not listed by name.
    /// `rejectsFile`: where every rejected row was written, if anywhere.
    init(_ report: ImportReport, results: [KindLoadResult], sources: [Importer.Source], options: ImportOptions,
         rejectsFile: String?) throws {
        let command = options.validateOnly ? "validate" : report.dryRun ? "import --dry-run" : "import"
        self.init(title: "crubatch \(command): \(sources.map(\.displayName).joined(separator: ", "))",
                  verdict: report.verdict, failed: report.exitStatus != .ok, summary: report.summaryCells)
        diagnostics = report.diagnostics
        let reader = RejectsWriter(options: options)
        // An iCalendar file's events are fixed in their calendar, not as rows: its problems are listed by code.
        for (result, source) in zip(results, sources)
        where !result.fatal && !result.rejectedLines.isEmpty && FileFormat.ofInput(path: source.readPath) != .calendar {
            var sheet: BadRows?
            try reader.readRows(of: result, source: source, everyRow: false) { header in
                sheet = BadRows(file: source.displayName, header: header)
            } row: { row in
                sheet?.add(row)
            }
            if sheet?.more ?? 0 > 0 { sheet?.rejectsFile = rejectsFile.map { sources.count > 1 ? $0 + "/" + source.kind.fileName : $0 } }
            if let sheet { badRows.append(sheet) }
        }
        changes = report.files.map { counts in
            let spec = KindSpec.of(counts.kind)
            // A person's own data, or the people a row names (a group's leaders by email).
            let personal = Set(spec.columns.filter { column in
                (column.personal ?? .no) != .no || (column.reference ?? column.list?.reference)?.table == PersonalColumns.people
            }.map(\.name))
            let masked = { (row: RowChange) in
                RowChange(key: row.key, fields: row.fields.map { field in
                    personal.contains(field.column) && field.old != nil
                        ? FieldChange(column: field.column, old: "(stored value not shown)", new: field.new) : field
                })
            }
            return Changes(kind: counts.kind.rawValue, inserted: counts.changes?.inserted ?? [],
                           updated: (counts.changes?.updated ?? []).map(masked),
                           restored: (counts.changes?.restored ?? []).map(masked), archived: counts.archivedRows)
        }
        if let effects = report.effects {
            let would = report.wrote ? "" : "would "
            if !effects.endedMemberships.isEmpty {
                notes.append("\(effects.endedMemberships.count) membership\(effects.endedMemberships.count == 1 ? "" : "s") \(would)end")
            }
            for group in effects.archivedGroups {
                notes.append("archiving \(group.group) \(report.wrote ? "took" : "takes") \(group.members.count) current member\(group.members.count == 1 ? "" : "s") off its roster")
            }
            if !effects.queuedMessages.isEmpty {
                notes.append("messages \(report.wrote ? "queued" : "that would be queued"): "
                             + effects.queuedMessages.map { "\($0.count) \($0.kind)\($0.suppressed ? " (suppressed, never sent)" : "")" }
                                .joined(separator: ", "))
            }
        }
    }
}
