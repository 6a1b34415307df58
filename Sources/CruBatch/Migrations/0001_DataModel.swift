extension Migration {
    /// The whole data model (docs/ARCHITECTURE.md). Constraints live here too: the database is the
    /// last line of defence, the importer's checks give the good messages.
    static let dataModel = Migration(version: 1, name: "data model", sql: #"""
    create function touch_updated_at() returns trigger language plpgsql as $$
    begin
        new.updated_at := now();
        return new;
    end $$;

    create table campuses (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        name text not null check (name <> ''),
        city text,
        state text,
        country text not null default 'US',
        timezone text not null default 'America/Los_Angeles',
        url text,
        calendar_url text,
        map_url text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );

    create table ministries (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        name text not null check (name <> ''),
        campus_id bigint not null references campuses on delete restrict,
        description text,
        url text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );
    create index ministries_campus_id on ministries (campus_id);

    create table people (
        id bigint generated always as identity primary key,
        email text not null check (email <> '' and email = lower(email)),
        first_name text not null check (first_name <> ''),
        last_name text not null check (last_name <> ''),
        phone text check (phone ~ '^\+[1-9][0-9]{6,14}(;ext=[0-9]+)?$'),
        sex text check (sex in ('male', 'female', 'unknown', 'not-applicable')),
        school_year smallint check (school_year between 1 and 5),
        grad_year smallint check (grad_year between 1950 and 2100),
        campus_id bigint references campuses on delete set null,
        is_leader boolean not null default false,
        is_staff boolean not null default false,
        staff_role text check (staff_role in ('staff', 'intern', 'student')),
        notifications_opt_out boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (not is_leader or phone is not null)
    );
    create unique index people_email on people (lower(email));
    create index people_campus_id on people (campus_id);

    create table person_ministries (
        person_id bigint not null references people on delete cascade,
        ministry_id bigint not null references ministries on delete cascade,
        position smallint not null default 0,
        primary key (person_id, ministry_id)
    );
    create index person_ministries_ministry_id on person_ministries (ministry_id);

    create table ministry_teams (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        ministry_id bigint not null references ministries on delete restrict,
        name text not null check (name <> ''),
        description text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );
    create index ministry_teams_ministry_id on ministry_teams (ministry_id);

    create table team_leaders (
        team_id bigint not null references ministry_teams on delete cascade,
        person_id bigint not null references people on delete restrict,
        position smallint not null default 0,
        primary key (team_id, person_id)
    );

    create table community_groups (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        ministry_id bigint not null references ministries on delete restrict,
        name text not null check (name <> ''),
        meeting_day text check (meeting_day in ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday')),
        meeting_time time,
        location text,
        audience text check (audience in ('freshmen', 'sophomores', 'juniors', 'seniors', 'graduates', 'faculty', 'mixed')),
        sex text check (sex in ('men', 'women', 'mixed')),
        capacity integer check (capacity > 0),
        description text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );
    create index community_groups_ministry_id on community_groups (ministry_id);

    create table group_leaders (
        group_id bigint not null references community_groups on delete cascade,
        person_id bigint not null references people on delete restrict,
        position smallint not null default 0,
        primary key (group_id, person_id)
    );
    create index group_leaders_person_id on group_leaders (person_id);

    create table memberships (
        id bigint generated always as identity primary key,
        group_id bigint not null references community_groups on delete cascade,
        person_id bigint not null references people on delete cascade,
        status text not null default 'active' check (status in ('active', 'pending')),
        joined_at timestamptz not null default now(),
        source text not null default 'app' check (source <> ''),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (group_id, person_id)
    );
    create index memberships_person_id on memberships (person_id);

    create table events (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        name text not null check (name <> ''),
        starts_at timestamptz not null,
        ends_at timestamptz check (ends_at >= starts_at),
        timezone text not null default 'America/Los_Angeles',
        location text,
        rideshare boolean not null default false,
        url text,
        description text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );

    create table event_ministries (
        event_id bigint not null references events on delete cascade,
        ministry_id bigint not null references ministries on delete cascade,
        position smallint not null default 0,
        primary key (event_id, ministry_id)
    );

    create table summer_missions (
        id bigint generated always as identity primary key,
        code text not null unique check (code <> '' and code = lower(code)),
        name text not null check (name <> ''),
        starts_on date not null,
        ends_on date not null check (ends_on >= starts_on),
        location text not null check (location <> ''),
        cost numeric(10, 2) check (cost >= 0),
        leaders text,
        url text,
        description text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );

    create table resources (
        id bigint generated always as identity primary key,
        url text not null unique check (url <> ''),
        title text not null check (title <> ''),
        type text check (type in ('article', 'video', 'audio', 'guide')),
        author text,
        published_on date,
        leaders_only boolean not null default false,
        description text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );

    create table resource_topics (
        resource_id bigint not null references resources on delete cascade,
        topic text not null check (topic <> ''),
        position smallint not null default 0,
        primary key (resource_id, topic)
    );

    create table notifications (
        id bigint generated always as identity primary key,
        kind text not null default 'member-joined' check (kind in ('member-joined')),
        membership_id bigint references memberships on delete set null,
        recipient_id bigint not null references people on delete cascade,
        dedupe_key text not null unique,
        status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'dead', 'skipped')),
        attempts integer not null default 0 check (attempts >= 0),
        next_attempt_at timestamptz not null default now(),
        last_error text,
        sent_at timestamptz,
        message_id text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );
    create index notifications_due on notifications (next_attempt_at) where status in ('pending', 'failed');

    create table import_runs (
        id bigint generated always as identity primary key,
        kind text not null,
        file_name text not null,
        sha256 text,
        status text not null default 'running' check (status in ('running', 'succeeded', 'rejected', 'failed', 'undone')),
        dry_run boolean not null default false,
        os_user text,
        rows_read integer not null default 0,
        rows_inserted integer not null default 0,
        rows_updated integer not null default 0,
        rows_unchanged integer not null default 0,
        rows_rejected integer not null default 0,
        error text,
        started_at timestamptz not null default now(),
        finished_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );

    do $$
    declare
        t text;
    begin
        foreach t in array array['campuses', 'ministries', 'people', 'ministry_teams', 'community_groups',
            'memberships', 'events', 'summer_missions', 'resources', 'notifications', 'import_runs']
        loop
            execute format('create trigger %I before update on %I for each row execute function touch_updated_at()',
                           t || '_touch_updated_at', t);
        end loop;
    end $$;
    """#)
}
