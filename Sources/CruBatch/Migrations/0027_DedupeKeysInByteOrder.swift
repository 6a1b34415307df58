extension Migration {
    /// The outbox's dedupe keys are compared byte by byte (collation "C"). crubatch makes them
    /// itself, in ASCII (a kind, ids, an epoch), and only ever asks whether two are equal, which
    /// every deterministic collation decides byte by byte anyway. But their unique index was ordered
    /// by the database's locale, and queueing a message compared its key against the index that
    /// way: a tenth of inserting the 14,000 messages of 7,000 ride pairings. The index is rebuilt;
    /// the rows stay as they are.
    static let dedupeKeysInByteOrder = Migration(version: 27, name: "dedupe keys in byte order", sql: """
    alter table notifications alter column dedupe_key type text collate "C";
    """)
}
