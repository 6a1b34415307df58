import CSVStream
import Foundation

/// Counts for one file of an import.
public struct KindCounts: Sendable, Equatable {
    public var kind: Kind
    public var file: String
    public var read = 0
    public var inserted = 0
    public var updated = 0
    /// Archived rows (or ended memberships) that the file listed again.
    public var restored = 0
    public var unchanged = 0
    /// Rows archived by `--sync` or cancelled by an iCalendar file, and memberships ended by `--sync`
    /// or `--move`.
    public var archived = 0
    public var rejected = 0
    /// People the file named that crubatch did not know, added as non-members (passengers asking for a ride).
    public var peopleAdded = 0
    public var seconds = 0.0
    public var runID: Int?
    /// The rows `--sync` or a calendar's cancellations archived, or would archive (a dry run, a
    /// refusal), by key.
    public var archivedRows: [String] = []
    /// Why `--sync` refused: nothing was written.
    public var refusal: String?
    /// What a run that writes nothing would change, row by row and field by field.
    public var changes: KindChanges?

    public init(kind: Kind, file: String) {
        self.kind = kind
        self.file = file
    }
}

/// The outcome of `import` or `validate`: counts per file, every diagnostic, and what was written.
public struct ImportReport: Sendable, CommandReport {
    public enum Outcome: String, Sendable, Codable {
        /// Everything loaded (or would have, in a dry run).
        case loaded
        /// Good rows loaded, bad rows rejected (`--on-error skip`).
        case partiallyLoaded = "partially-loaded"
        /// Bad rows: nothing was written.
        case rejected
        /// A file could not be read at all: nothing was written.
        case unreadable
        /// `--sync` would archive more than `--max-archive` allows, or the file is empty: nothing was written.
        case refused
    }

    public var files: [KindCounts] = []
    public var diagnostics: [Diagnostic] = []
    public var dryRun = false
    public var validateOnly = false
    public var outcome: Outcome = .loaded
    /// True when `--max-errors` stopped the checks early.
    public var stoppedEarly = false
    /// What `--rejects` wrote, if anything.
    public var rejects: RejectsSummary?
    /// What follows from the load beyond its rows (ended memberships, queued messages).
    public var effects: LoadEffects?
    /// How many rows of each list of changes `text` shows (nil: all of them).
    public var diffLimit: Int? = 20
    /// The URLs skipped because their content is what their last import loaded.
    public var unchanged: [UnchangedSource] = []
    /// A migration's account of every document of the dump.
    public var reconciliation: KeystoneReconciliation?

    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    public var warningCount: Int { diagnostics.count - errorCount }

    /// The exit status this outcome means (see the README's "Exit codes").
    public var exitStatus: ExitStatus {
        switch outcome {
        case .loaded: .ok
        case .partiallyLoaded, .rejected, .refused: .rejected
        case .unreadable: .dataError
        }
    }

    /// Whether rows were actually written to the database.
    public var wrote: Bool {
        !dryRun && !validateOnly && !files.isEmpty && (outcome == .loaded || outcome == .partiallyLoaded)
    }

    /// The per-file summary's column titles and rows (with a total row for several files).
    var summaryCells: (headers: [String], rows: [[String]]) {
        let headers = wrote
            ? ["kind", "read", "inserted", "updated", "restored", "unchanged", "archived", "rejected", "seconds"]
            : ["kind", "read", "would insert", "would update", "would restore", "unchanged", "would archive", "rejected", "seconds"]
        let counted: [KeyPath<KindCounts, Int>] = [\.read, \.inserted, \.updated, \.restored, \.unchanged, \.archived, \.rejected]
        var rows = files.map { counts in
            [counts.kind.rawValue] + counted.map { String(counts[keyPath: $0]) } + [String(format: "%.2f", counts.seconds)]
        }
        if files.count > 1 {
            rows.append(["total"] + counted.map { path in String(files.reduce(0) { $0 + $1[keyPath: path] }) }
                + [String(format: "%.2f", files.reduce(0) { $0 + $1.seconds })])
        }
        return (headers, rows)
    }

    /// The per-file summary table for stdout.
    public var summaryTable: String {
        let (headers, rows) = summaryCells
        var table = TextTable(headers: headers, alignments: [.left] + Array(repeating: .right, count: headers.count - 1))
        rows.forEach { table.append($0) }
        var lines = table.lines
        lines.append(verdict)
        if let rejects { lines.append(rejects.sentence) }
        return lines.joined(separator: "\n")
    }

    /// One line per row that `--sync` archived (or would archive): `groups: archived cp-small-tue`.
    public var archiveLines: [String] {
        files.flatMap { counts in
            counts.archivedRows.map { "\(counts.kind.rawValue): \(wrote ? "archived" : "would archive") \($0)" }
        }
    }

    /// One sentence saying what happened to the database.
    public var verdict: String {
        let problems = "\(errorCount) error\(errorCount == 1 ? "" : "s"), \(warningCount) warning\(warningCount == 1 ? "" : "s")"
        switch outcome {
        case .unreadable: return "\(problems): the file could not be read; nothing was written"
        case .refused:
            return "\(problems): sync refused: \(files.compactMap(\.refusal).joined(separator: "; ")); nothing was written"
        case .rejected: return "\(problems)\(stoppedEarly ? " (stopped at --max-errors)" : ""): nothing was written"
        case .partiallyLoaded:
            return "\(problems): good rows \(dryRun ? "would be" : "were") loaded, bad rows rejected"
        case .loaded:
            if validateOnly { return "\(problems): the file is valid (nothing was written)" }
            return dryRun ? "\(problems): dry run, nothing was written" : "\(problems): loaded"
        }
    }

    /// `ride-requests: added 2 people as non-members` (`attendance: added 40 walk-ins as students`), for
    /// each file that added someone.
    public var addedPeopleLines: [String] {
        files.filter { $0.peopleAdded > 0 }.map { counts in
            let one = counts.peopleAdded == 1
            return "\(counts.kind.rawValue): \(wrote ? "added" : "would add") \(counts.peopleAdded) "
                + (KindSpec.of(counts.kind).walkIns == nil ? (one ? "person as a non-member" : "people as non-members")
                   : (one ? "walk-in as a student" : "walk-ins as students"))
        }
    }

    /// What `--sync` archived (or would), one line per row, the people added, then the summary table.
    public var text: String {
        let loaded = files.isEmpty && !unchanged.isEmpty ? [] : [summaryTable]
        return (unchanged.map(\.sentence) + changeLines + archiveLines + addedPeopleLines + effectLines + loaded
                + [reconciliation?.text].compactMap { $0 }).joined(separator: "\n")
    }

    private enum Keys: String, CodingKey {
        case files, diagnostics, dryRun, validateOnly, outcome, stoppedEarly, wrote, errors, warnings, exitStatus, rejects, effects
        case unchanged, reconciliation
    }

    /// Counts of a run that wrote nothing (dry, validate-only, rejected, refused) say `would_insert`,
    /// `would_update`, `would_restore` and `would_archive`, never `inserted` ...
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(files.map { FileDocument(counts: $0, wrote: wrote) }, forKey: .files)
        try container.encode(diagnostics, forKey: .diagnostics)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(validateOnly, forKey: .validateOnly)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(stoppedEarly, forKey: .stoppedEarly)
        try container.encode(wrote, forKey: .wrote)
        try container.encode(errorCount, forKey: .errors)
        try container.encode(warningCount, forKey: .warnings)
        try container.encode(exitStatus.rawValue, forKey: .exitStatus)
        try container.encodeIfPresent(rejects, forKey: .rejects)
        try container.encodeIfPresent(effects, forKey: .effects)
        try container.encode(unchanged, forKey: .unchanged)
        try container.encodeIfPresent(reconciliation, forKey: .reconciliation)
    }

    private struct FileDocument: Encodable {
        let counts: KindCounts
        let wrote: Bool

        enum Keys: String, CodingKey {
            case kind, file, read, inserted, updated, restored, archived, wouldInsert, wouldUpdate, wouldRestore, wouldArchive
            case unchanged, rejected, seconds, runId, archivedRows, refusal, peopleAdded, wouldAddPeople, changes
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(counts.kind, forKey: .kind)
            try container.encode(counts.file, forKey: .file)
            try container.encode(counts.read, forKey: .read)
            try container.encode(counts.inserted, forKey: wrote ? .inserted : .wouldInsert)
            try container.encode(counts.updated, forKey: wrote ? .updated : .wouldUpdate)
            try container.encode(counts.restored, forKey: wrote ? .restored : .wouldRestore)
            try container.encode(counts.archived, forKey: wrote ? .archived : .wouldArchive)
            try container.encode(counts.peopleAdded, forKey: wrote ? .peopleAdded : .wouldAddPeople)
            try container.encode(counts.archivedRows, forKey: .archivedRows)
            try container.encodeIfPresent(counts.refusal, forKey: .refusal)
            try container.encode(counts.unchanged, forKey: .unchanged)
            try container.encode(counts.rejected, forKey: .rejected)
            try container.encode(counts.seconds, forKey: .seconds)
            try container.encodeIfPresent(counts.runID, forKey: .runId)
            try container.encodeIfPresent(counts.changes, forKey: .changes)
        }
    }
}
