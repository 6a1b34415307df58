extension Migration {
    /// The old Keystone app's ObjectIds and the keys their documents were given here, so migrating
    /// the same dump again finds the same rows (codes made from names stay, even when a name was
    /// edited in the old app). People are keyed by email, resources by url, the rest by code.
    static let legacyIDs = Migration(version: 20, name: "legacy ids of migrated documents", sql: """
    create table legacy_ids (
        collection text not null,
        object_id text not null check (object_id <> ''),
        kind text not null,
        key text not null check (key <> ''),
        migrated_at timestamptz not null default now(),
        primary key (collection, object_id)
    );
    create index legacy_ids_kind_key on legacy_ids (kind, key);
    """)
}
