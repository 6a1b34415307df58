import PostgresClient

/// The advisory locks that imports (one per kind) and `place` hold while they write, taken by the
/// commands that must not run beside them.
enum WriterLocks {
    /// In an open transaction: holds the locks of imports of `kinds` and of `place` until it ends, or
    /// throws `lockHeld` saying `who` is running.
    static func hold(_ kinds: [Kind], on connection: PostgresConnection, against who: String) throws {
        let keys = kinds.map(Importer.lockKey) + [Placer.lockKey]
        guard try connection.query("""
            select bool_and(pg_try_advisory_xact_lock(key)) from unnest(\(keys)::bigint[]) key
            """).scalar(Bool.self) else {
            throw CruBatchError.lockHeld(who)
        }
    }
}
