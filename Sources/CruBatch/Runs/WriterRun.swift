import PostgresClient

/// The frame of every command that writes (import, place, rides pair, rides cancel, forget, undo):
/// it records its runs in `import_runs` (`RunLog.start`), begins the transaction, takes the writer
/// locks, names the run in `crubatch.run_id` for the change-log triggers, does the command's work,
/// and commits it, or rolls it back when the work says so (a dry run). When anything throws it rolls
/// back, records the runs as failed and throws again. A run that stages files (import, place) works
/// in a `WorkSchema` of its own, dropped before the commit. How a run that did not throw ended (its
/// status and counts) is the command's to record (`log.finish`).
struct WriterRun {
    /// The advisory locks a run holds while it writes.
    enum Locks {
        /// None: `validate`, which writes nothing.
        case none
        /// For the transaction: the import locks of `kinds` and place's lock (`WriterLocks`), or
        /// `lockHeld` saying `against` is running.
        case writers([Kind], against: String)
        /// For the session, taken before the runs are recorded and held until they are finished: the
        /// import lock of each kind, in `Kind` order (the same in every process, so two imports waiting
        /// for locks cannot deadlock); waits for them when `wait`, otherwise `lockHeld`.
        case imports([Kind], wait: Bool)

        /// Every kind whose rows are people or name them (`Kind.holdingPeople`): what a writer that
        /// changes a person everywhere (merge, forget) holds still.
        static var people: Locks {
            let kinds = Kind.holdingPeople.map(\.rawValue)
            return .writers(Kind.holdingPeople,
                            against: "an import of \(kinds.dropLast().joined(separator: ", ")) or \(kinds.last ?? ""), or a place,")
        }
    }

    /// What the work sees of its run.
    final class Scope {
        /// The `import_runs` ids, one per entry of the run.
        let ids: [Int]
        /// Whether the transaction is committed when the work returns: not for a dry run, unless
        /// the work decides otherwise.
        var commits: Bool
        private let log: RunLog
        private var recorded: Int?

        fileprivate init(ids: [Int], commits: Bool, log: RunLog) {
            (self.ids, self.commits, self.log) = (ids, commits, log)
        }

        /// The changes made from now on are filed under the run of entry `index` (an import of
        /// several files records each under its own).
        func record(_ index: Int) throws {
            guard recorded != index else { return }
            try log.record(as: ids[index])
            recorded = index
        }
    }

    let connection: PostgresConnection
    /// What each `import_runs` row records: none for `validate` and `undo`, one per file for an import.
    let entries: [(kind: RunKind, file: String)]
    let dryRun: Bool
    let locks: Locks
    /// Whether the work gets a `WorkSchema` for its stage and the merge's tables.
    let stages: Bool

    init(connection: PostgresConnection, entries: [(kind: RunKind, file: String)], dryRun: Bool = false,
         locks: Locks, stages: Bool = false) {
        (self.connection, self.entries, self.dryRun, self.locks, self.stages) = (connection, entries, dryRun, locks, stages)
    }

    /// A run recorded as one `import_runs` row.
    init(connection: PostgresConnection, kind: RunKind, file: String, dryRun: Bool = false, locks: Locks,
         stages: Bool = false) {
        self.init(connection: connection, entries: [(kind, file)], dryRun: dryRun, locks: locks, stages: stages)
    }

    /// The `RunLog` that records the run's rows.
    var log: RunLog { RunLog(connection: connection) }

    /// Does `work` in the run's transaction, then `then` once it ended (an import finishes its runs
    /// there, under its locks); returns what `work` returned and the ids of the run's `import_runs` rows.
    @discardableResult
    func perform<Result>(_ work: (Scope) throws -> Result,
                         then finish: ([Int]) throws -> Void = { _ in }) throws -> (result: Result, ids: [Int]) {
        if case .imports(let kinds, let wait) = locks { try lockImports(kinds, wait: wait) }
        defer {
            if case .imports(let kinds, _) = locks {
                for kind in kinds { try? connection.advisoryUnlock(WriterLocks.importKey(kind)) }
            }
        }
        let ids = try entries.map { try log.start(kind: $0.kind, file: $0.file, dryRun: dryRun) }
        let scope = Scope(ids: ids, commits: !dryRun, log: log)
        let result: Result
        do {
            try connection.execute("begin")
            if case .writers(let kinds, let who) = locks { try WriterLocks.hold(kinds, on: connection, against: who) }
            if let first = entries.first, first.kind.logsChanges { try scope.record(0) }
            let workSchema = stages ? try WorkSchema.create(on: connection) : nil
            result = try work(scope)
            // A rollback takes the work schema with it, also when a failed statement of the work
            // aborted the transaction (which then takes no drop).
            if scope.commits { try workSchema?.drop() }
            try connection.execute(scope.commits ? "commit" : "rollback")
        } catch {
            try? connection.execute("rollback")
            for id in ids { try? log.finish(id, status: .failed, error: String(describing: error)) }
            throw error
        }
        try finish(ids)
        return (result, ids)
    }

    private func lockImports(_ kinds: [Kind], wait: Bool) throws {
        for kind in kinds {
            if wait {
                try connection.advisoryLock(WriterLocks.importKey(kind))
            } else if try !connection.tryAdvisoryLock(WriterLocks.importKey(kind)) {
                throw CruBatchError.lockHeld(
                    "another import of \(kind.rawValue) (or a place, rides pair, undo or forget that writes it)")
            }
        }
    }
}
