import PostgresClient

/// How a run ended, as `import_runs.status` records it (a check constraint allows these and no other).
enum RunStatus: String, Sendable, CaseIterable, PostgresEncodable {
    /// Recorded at the start; a run still `running` without its lock was killed.
    case running
    case succeeded
    /// Its rows were refused: nothing was written.
    case rejected
    case failed
    /// `undo` reversed it.
    case undone

    var postgresText: String { rawValue }
}
