extension Migration {
    /// What was last imported from each URL (per kind): the validators its server sent (ETag,
    /// Last-Modified) and the SHA-256 of the content, so that a scheduled import asks "changed
    /// since?" and loads nothing when the answer is no. The URL is kept with its password masked.
    static let sources = Migration(version: 17, name: "sources remember what was fetched", sql: """
    create table sources (
        id bigint generated always as identity primary key,
        kind text not null,
        url text not null,
        etag text,
        last_modified text,
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        run_id bigint references import_runs (id) on delete set null,
        fetched_at timestamptz not null default now(),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (kind, url)
    );
    """)
}
