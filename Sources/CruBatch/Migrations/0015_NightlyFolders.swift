extension Migration {
    /// Each nightly run records the folder it wrote into, so that `forget` can find the dated folders
    /// that still hold copies of a person without being told where they are.
    static let nightlyFolders = Migration(version: 15, name: "nightly runs remember their folder", sql: """
    create table nightly_runs (
        id bigint generated always as identity primary key,
        out_dir text not null check (out_dir like '/%'),
        folder text not null,
        finished_at timestamptz not null default now()
    );
    """)
}
