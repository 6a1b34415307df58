import CSVStream
import Foundation

/// Counts for one file of an import.
public struct KindCounts: Sendable, Equatable {
    public var kind: Kind
    public var file: String
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var rejected = 0
    public var seconds = 0.0
    public var runID: Int?

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

    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
    public var warningCount: Int { diagnostics.count - errorCount }

    /// The exit status this outcome means (see the README's "Exit codes").
    public var exitStatus: ExitStatus {
        switch outcome {
        case .loaded: .ok
        case .partiallyLoaded, .rejected: .rejected
        case .unreadable: .dataError
        }
    }

    /// Whether rows were actually written to the database.
    public var wrote: Bool { !dryRun && !validateOnly && (outcome == .loaded || outcome == .partiallyLoaded) }

    /// The per-file summary table for stdout.
    public var summaryTable: String {
        let would = !wrote
        let headers = ["kind", "read", would ? "would insert" : "inserted", would ? "would update" : "updated",
                       "unchanged", "rejected", "seconds"]
        var table = TextTable(headers: headers, alignments: [.left] + Array(repeating: .right, count: headers.count - 1))
        var rows = files.map { counts in
            [counts.kind.rawValue, String(counts.read), String(counts.inserted), String(counts.updated),
             String(counts.unchanged), String(counts.rejected), String(format: "%.2f", counts.seconds)]
        }
        if files.count > 1 {
            let sum = { (path: KeyPath<KindCounts, Int>) in String(files.reduce(0) { $0 + $1[keyPath: path] }) }
            rows.append(["total", sum(\.read), sum(\.inserted), sum(\.updated), sum(\.unchanged), sum(\.rejected),
                         String(format: "%.2f", files.reduce(0) { $0 + $1.seconds })])
        }
        rows.forEach { table.append($0) }
        var lines = table.lines
        lines.append(verdict)
        if let rejects { lines.append(rejects.sentence) }
        return lines.joined(separator: "\n")
    }

    /// One sentence saying what happened to the database.
    public var verdict: String {
        let problems = "\(errorCount) error\(errorCount == 1 ? "" : "s"), \(warningCount) warning\(warningCount == 1 ? "" : "s")"
        switch outcome {
        case .unreadable: return "\(problems): the file could not be read; nothing was written"
        case .rejected: return "\(problems)\(stoppedEarly ? " (stopped at --max-errors)" : ""): nothing was written"
        case .partiallyLoaded:
            return "\(problems): good rows \(dryRun ? "would be" : "were") loaded, bad rows rejected"
        case .loaded:
            if validateOnly { return "\(problems): the file is valid (nothing was written)" }
            return dryRun ? "\(problems): dry run, nothing was written" : "\(problems): loaded"
        }
    }

    public var text: String { summaryTable }

    private enum Keys: String, CodingKey {
        case files, diagnostics, dryRun, validateOnly, outcome, stoppedEarly, wrote, errors, warnings, exitStatus, rejects
    }

    /// Counts of a run that wrote nothing (dry, validate-only, rejected) say `would_insert` and
    /// `would_update`, never `inserted` and `updated`.
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
    }

    private struct FileDocument: Encodable {
        let counts: KindCounts
        let wrote: Bool

        enum Keys: String, CodingKey {
            case kind, file, read, inserted, updated, wouldInsert, wouldUpdate, unchanged, rejected, seconds, runId
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(counts.kind, forKey: .kind)
            try container.encode(counts.file, forKey: .file)
            try container.encode(counts.read, forKey: .read)
            try container.encode(counts.inserted, forKey: wrote ? .inserted : .wouldInsert)
            try container.encode(counts.updated, forKey: wrote ? .updated : .wouldUpdate)
            try container.encode(counts.unchanged, forKey: .unchanged)
            try container.encode(counts.rejected, forKey: .rejected)
            try container.encode(counts.seconds, forKey: .seconds)
            try container.encodeIfPresent(counts.runID, forKey: .runId)
        }
    }
}
