import Foundation
import PostgresClient

/// The `import_runs` row of every run that writes (import, place, forget, rides cancel, rides
/// pair). It is written outside the run's transaction, so a failed or killed run stays listed.
/// Inside the transaction, `record(as:)` names the run in the setting `crubatch.run_id`, and the
/// change-log triggers file every row the run changes under it in `run_changes`, which `runs show`
/// lists and `undo` reads.
struct RunLog {
    /// While its process lives, a run holds the advisory lock (`lockSpace`, its id), which pg_locks
    /// shows as classid and objid; a run still `running` without it was killed.
    static let lockSpace = 0x6372_7563

    let connection: PostgresConnection

    /// What a run read and did, as `crubatch runs` lists it.
    struct Counts {
        var read = 0
        var inserted = 0
        var updated = 0
        var restored = 0
        var unchanged = 0
        var archived = 0
        var rejected = 0
    }

    /// What a run was, for messages, from the kind `import_runs` stored (see `RunKind`).
    static func description(kind: String, file: String) -> String {
        RunKind(stored: kind)?.description(file: file) ?? "import \(kind) \(file)"
    }

    /// The operating-system user running crubatch: who asked for a run.
    static var user: String {
        getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? String(getuid())
    }

    /// The session setting that names who started the runs of a connection (`RunStarter`).
    static let startedBySetting = "crubatch.started_by"

    /// Records a run as `running` and takes its lock, in one statement so no one sees the run without
    /// its lock; returns its id.
    func start(kind: RunKind, file: String, dryRun: Bool) throws -> Int {
        try connection.query("""
            with run as (
                insert into import_runs (kind, file_name, dry_run, os_user)
                values (\(kind.stored), \(file), \(dryRun),
                        coalesce(nullif(current_setting(\(Self.startedBySetting), true), ''), \(Self.user))) returning id)
            select id, pg_advisory_lock(\(Self.lockSpace), id::int) from run
            """).scalar(Int.self)
    }

    /// In the run's open transaction: the changes made from now on until it ends are run `id`'s.
    func record(as id: Int) throws {
        try connection.query("select set_config('crubatch.run_id', \(String(id)), true)")
    }

    /// Records how a run ended, then releases its lock: once the outcome is visible, so the run never
    /// looks killed. What it wrote counts only when it wrote (`wrote`): a dry or rejected run records 0
    /// inserted, updated, restored and archived, whatever it would have done.
    func finish(_ id: Int, status: RunStatus, counts: Counts? = nil, sha256: String? = nil, error: String? = nil,
                wrote: Bool = true) throws {
        var counts = counts ?? Counts()
        if !wrote { (counts.inserted, counts.updated, counts.restored, counts.archived) = (0, 0, 0, 0) }
        try connection.query("""
            update import_runs set status = \(status), sha256 = \(sha256), rows_read = \(counts.read),
                rows_inserted = \(counts.inserted), rows_updated = \(counts.updated), rows_restored = \(counts.restored),
                rows_unchanged = \(counts.unchanged), rows_archived = \(counts.archived), rows_rejected = \(counts.rejected),
                error = \(error), finished_at = now()
            where id = \(id)
            """)
        try connection.query("select pg_advisory_unlock(\(Self.lockSpace), \(id))")
    }
}

/// Who the runs made on a connection are recorded as started by, when that is not the operating-system
/// user: the console names the signed-in account (`console:EMAIL`) on each connection it lends.
public enum RunStarter {
    /// Sets it for the rest of the session; nil: the operating-system user again.
    public static func set(_ name: String?, on connection: PostgresConnection) throws {
        try connection.query("select set_config(\(RunLog.startedBySetting), \(name ?? ""), false)")
    }
}
