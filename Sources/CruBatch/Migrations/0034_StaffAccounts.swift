extension Migration {
    /// Who may use the staff console (`crubatch serve`): accounts with a role and, for a campus
    /// account, its campuses; the password only as a bcrypt hash. Sessions are rows, so signing out or
    /// a new password ends them at once; the cookie holds a random token and the table its SHA-256, so
    /// a copy of the table signs no one in. Failed sign-ins are kept a while, to slow guessing per
    /// account and per address. A preview is an uploaded file checked and shown before it is applied:
    /// its account, the file's SHA-256 and the state of the tables it was computed on, so Apply
    /// writes only what was shown, and only its account reaches it. Two people a reviewer said are
    /// not the same person are remembered, so the pair is not proposed again.
    static let staffAccounts = Migration(version: 34, name: "staff console accounts", sql: """
    create table staff_accounts (
        id bigint generated always as identity primary key,
        email text not null check (email = lower(email) and email like '%_@_%'),
        role text not null check (role in ('admin', 'campus', 'viewer')),
        password_hash text,
        created_at timestamptz not null default now()
    );
    create unique index staff_accounts_email on staff_accounts (email);

    create table staff_account_campuses (
        account_id bigint not null references staff_accounts on delete cascade,
        campus_id bigint not null references campuses on delete cascade,
        primary key (account_id, campus_id)
    );

    create table staff_sessions (
        token_sha256 text primary key,
        account_id bigint not null references staff_accounts on delete cascade,
        csrf text not null,
        address text not null,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now()
    );
    create index staff_sessions_account on staff_sessions (account_id);

    create table staff_sign_in_failures (
        email text not null,
        address text not null,
        failed_at timestamptz not null default now()
    );
    create index staff_sign_in_failures_email on staff_sign_in_failures (email, failed_at);
    create index staff_sign_in_failures_address on staff_sign_in_failures (address, failed_at);

    create table staff_previews (
        id text primary key,
        account_id bigint not null references staff_accounts on delete cascade,
        kind text not null,
        file_name text not null,
        sha256 text not null,
        tables_state text not null,
        created_at timestamptz not null default now(),
        applied_run_id bigint references import_runs
    );

    create table people_not_duplicates (
        a_id bigint not null references people on delete cascade,
        b_id bigint not null references people on delete cascade,
        decided_by text not null,
        decided_at timestamptz not null default now(),
        primary key (a_id, b_id),
        check (a_id < b_id)
    );
    """)
}
