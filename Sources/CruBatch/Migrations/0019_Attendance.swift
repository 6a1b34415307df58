extension Migration {
    /// Who came to which event (docs/ARCHITECTURE.md, "Attendance").
    ///
    /// - `attendance`: one row per event and person, with the time of the check-in (null only once
    ///   `forget` erased it), archived by `import attendance --sync` and logged for `undo` like every kind.
    /// - `people.origin`: `check-in` for someone first known from a check-in sheet (a walk-in).
    /// - `ministries.contact_email`: the staff contact who follows up the ministry's newcomers.
    /// - Message kind `newcomer`, to a ministry rather than a person: a person's first attendance at
    ///   any event of a ministry, when they are in no active group of it, is queued per statement for
    ///   each of the event's ministries that has a contact (once per person and ministry: a person who
    ///   came to two of its events in one file is told about once, at the first). Its subject is the
    ///   attendance, whose deletion leaves the message with nothing to say. A newcomer who joins a
    ///   group of the ministry (an active membership, by any writer) before it is sent is not followed up:
    ///   the pending message is cancelled.
    static let attendance = Migration(version: 19, name: "attendance", sql: #"""
    alter table ministries add column contact_email text
        check (contact_email <> '' and contact_email = lower(contact_email));

    alter table people add column origin text check (origin in ('check-in'));

    create table attendance (
        id bigint generated always as identity primary key,
        event_id bigint not null references events on delete cascade,
        person_id bigint not null references people on delete cascade,
        checked_in_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (event_id, person_id)
    );
    create index attendance_person_id on attendance (person_id);
    create trigger attendance_touch_updated_at before update on attendance
        for each row execute function touch_updated_at();
    create trigger attendance_record_run_insert after insert on attendance referencing new table as new_rows
        for each statement execute function record_run_insert();
    create trigger attendance_record_run_update after update on attendance
        referencing old table as old_rows new table as new_rows for each statement execute function record_run_update();
    create trigger attendance_record_run_delete after delete on attendance referencing old table as old_rows
        for each statement execute function record_run_delete();

    alter table notifications alter column recipient_id drop not null,
        add column attendance_id bigint references attendance on delete set null,
        add column ministry_id bigint references ministries on delete cascade,
        add constraint notifications_one_recipient check ((recipient_id is null) <> (ministry_id is null));
    create index notifications_attendance_id on notifications (attendance_id) where attendance_id is not null;

    insert into notification_kinds (kind, description) values
        ('newcomer', 'someone came to an event of a ministry for the first time and is in none of its groups: to its staff contact');

    create function queue_newcomer_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        insert into notifications (kind, attendance_id, ministry_id, dedupe_key, status)
        select 'newcomer', f.attendance_id, f.ministry_id, 'newcomer:' || f.attendance_id || ':' || f.ministry_id,
               notification_initial_status()
        from (select distinct on (a.person_id, em.ministry_id) a.id as attendance_id, em.ministry_id
              from new_rows a
              join people p on p.id = a.person_id and not p.is_leader
              join event_ministries em on em.event_id = a.event_id
              join ministries mi on mi.id = em.ministry_id and mi.contact_email is not null and mi.archived_at is null
              where not exists (select 1 from attendance o join event_ministries oe on oe.event_id = o.event_id
                                where o.person_id = a.person_id and oe.ministry_id = em.ministry_id
                                and o.id not in (select n.id from new_rows n))
              and not exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                              where m.person_id = a.person_id and g.ministry_id = em.ministry_id
                              and m.status = 'active' and g.archived_at is null)
              order by a.person_id, em.ministry_id, a.checked_in_at, a.id) f
        order by f.attendance_id, f.ministry_id
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'attendance');
        end if;
        return null;
    end $$;
    create trigger attendance_queue_newcomers after insert on attendance
        referencing new table as new_rows for each statement execute function queue_newcomer_notifications();

    -- Someone who joins a group of the ministry before their newcomer message is sent needs no follow-up.
    create function cancel_newcomers_who_joined() returns trigger language plpgsql as $$
    begin
        update notifications n set status = 'cancelled', last_error = 'they joined a group of the ministry before it was sent'
        from new_rows m join community_groups g on g.id = m.group_id join attendance a on a.person_id = m.person_id
        where m.status = 'active' and n.kind = 'newcomer' and n.status = 'pending'
        and n.attendance_id = a.id and n.ministry_id = g.ministry_id;
        return null;
    end $$;
    create trigger memberships_cancel_newcomers after insert on memberships
        referencing new table as new_rows for each statement execute function cancel_newcomers_who_joined();
    """#)
}
