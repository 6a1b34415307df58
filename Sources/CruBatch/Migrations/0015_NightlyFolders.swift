extension Migration {
    /// Each nightly run records the folder it writes into (one row a folder, with when it was last
    /// written), so that `forget` can find the dated folders that still hold copies of a person
    /// without being told where they are.
    static let nightlyFolders = Migration(version: 15, name: "nightly runs remember their folder", sql: """
    create table nightly_folders (
        out_dir text primary key check (out_dir like '/%'),
        last_written_at timestamptz not null default now()
    );
    """)
}
