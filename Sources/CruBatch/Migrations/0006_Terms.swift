extension Migration {
    /// The academic calendar: each campus's terms with their breaks, which bound the weekly meetings
    /// of its groups in calendars; a group's own first and last meeting; and what events read from
    /// iCalendar files carry: a UID, all-day dates, a recurrence rule and its exceptions.
    static let terms = Migration(version: 6, name: "terms, meeting dates, calendar events", sql: #"""
    -- Breaks are a JSON array of {"name", "starts_on", "ends_on"} objects (dates as YYYY-MM-DD),
    -- each inside the term. ISO dates read the same whatever DateStyle says, so the check is immutable.
    create function term_breaks_are_valid(breaks jsonb, term_starts_on date, term_ends_on date) returns boolean
    immutable language sql as $$
        select jsonb_typeof(breaks) = 'array' and not exists (
            select 1 from jsonb_array_elements(breaks) b
            where case when jsonb_typeof(b) = 'object' and coalesce(b->>'name', '') <> ''
                            and b->>'starts_on' ~ '^\d{4}-\d{2}-\d{2}$' and b->>'ends_on' ~ '^\d{4}-\d{2}-\d{2}$'
                       then (b->>'starts_on')::date > (b->>'ends_on')::date
                            or (b->>'starts_on')::date < term_starts_on or (b->>'ends_on')::date > term_ends_on
                       else true end)
    $$;

    create table terms (
        id bigint generated always as identity primary key,
        campus_id bigint not null references campuses on delete cascade,
        code text not null check (is_valid_code(code)),
        name text not null check (name <> ''),
        starts_on date not null,
        ends_on date not null check (ends_on > starts_on),
        breaks jsonb not null default '[]' check (term_breaks_are_valid(breaks, starts_on, ends_on)),
        archived_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (campus_id, code)
    );
    create trigger terms_touch_updated_at before update on terms for each row execute function touch_updated_at();

    alter table community_groups
        add column first_meeting date,
        add column last_meeting date,
        add constraint community_groups_meeting_dates check (last_meeting >= first_meeting);

    alter table events
        add column all_day boolean not null default false,
        add column recurrence text check (recurrence <> ''),
        add column exceptions timestamptz[],
        add column uid text check (uid <> '');
    create unique index events_uid on events (uid);
    """#)
}
