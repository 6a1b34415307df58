import PostgresClient

/// The advisory locks that imports (one per kind) and `place` hold while they write, taken by the
/// commands that must not run beside them.
enum WriterLocks {
    /// The key of the lock an import of `kind` holds for the whole load.
    static func importKey(_ kind: Kind) -> Int64 { 0x6372_7562_1000 + Int64(Kind.allCases.firstIndex(of: kind)!) }

    /// The key of the lock `place` holds for its transaction.
    static let placeKey: Int64 = 0x6372_7562_2000

    /// In an open transaction: holds the locks of imports of `kinds` and of `place` until it ends, or
    /// throws `lockHeld` saying `who` is running.
    static func hold(_ kinds: [Kind], on connection: PostgresConnection, against who: String) throws {
        let keys = kinds.map(importKey) + [placeKey]
        guard try connection.query("""
            select bool_and(pg_try_advisory_xact_lock(key)) from unnest(\(keys)::bigint[]) key
            """).scalar(Bool.self) else {
            throw CruBatchError.lockHeld(who)
        }
    }
}
