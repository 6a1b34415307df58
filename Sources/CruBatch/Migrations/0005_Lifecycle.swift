extension Migration {
    /// Rows that leave and come back, memberships that end, and the change log that `undo` and
    /// `forget` work from (docs/guide/importing.md, "Lists that shrink: sync, moves, undo and forget").
    ///
    /// - Every kind except people gets `archived_at`; archived rows are kept for history and left out
    ///   of exports, placement and notifications. People get `forgotten_at` instead (`forget`).
    /// - Memberships get `ended_at` and the status `left`; a trigger keeps the two in step whoever
    ///   writes the row, and cancels the leader notifications still pending for a membership that ends.
    ///   Only current members (not those who left) hold a seat in a group (migration 4's capacity check).
    /// - `run_changes` holds the before- and after-image of every row a run (import, sync, place)
    ///   inserted, updated or deleted. Statement-level triggers with transition tables write it, in the
    ///   same transaction as the change, whenever the transaction has set `crubatch.run_id`.
    static let lifecycle = Migration(version: 5, name: "archive, moves, undo and forget", sql: #"""
    alter table campuses add column archived_at timestamptz;
    alter table ministries add column archived_at timestamptz;
    alter table ministry_teams add column archived_at timestamptz;
    alter table community_groups add column archived_at timestamptz;
    alter table events add column archived_at timestamptz;
    alter table summer_missions add column archived_at timestamptz;
    alter table resources add column archived_at timestamptz;

    alter table people add column forgotten_at timestamptz;

    alter table memberships add column ended_at timestamptz;
    alter table memberships drop constraint if exists memberships_status_check,
        add constraint memberships_status_check check (status in ('active', 'pending', 'left'));
    alter table memberships add constraint memberships_ended_when_left check ((status = 'left') = (ended_at is not null));

    create function membership_set_ended_at() returns trigger language plpgsql as $$
    begin
        new.ended_at := case when new.status = 'left' then coalesce(new.ended_at, now()) end;
        return new;
    end $$;
    create trigger memberships_set_ended_at before insert or update of status, ended_at on memberships
        for each row execute function membership_set_ended_at();

    -- Another migration may add 'cancelled' too: dropping by name and adding again works in either order.
    alter table notifications drop constraint if exists notifications_status_check,
        add constraint notifications_status_check
        check (status in ('pending', 'sent', 'failed', 'dead', 'skipped', 'cancelled'));

    create function cancel_notifications_of_ended_membership() returns trigger language plpgsql as $$
    begin
        update notifications set status = 'cancelled', last_error = 'the membership ended before the leader was told'
        where membership_id = new.id and status = 'pending';
        return null;
    end $$;
    create trigger memberships_cancel_notifications_when_ended after update of status on memberships
        for each row when (new.status = 'left' and old.status <> 'left')
        execute function cancel_notifications_of_ended_membership();

    -- Only current members hold a seat: a member who left frees theirs, and one who comes back
    -- (left -> active) needs one again.
    create or replace function enforce_group_capacity() returns trigger language plpgsql as $$
    declare
        target record;
        members integer;
    begin
        if new.status = 'left' then
            return new;
        end if;
        select code, capacity into target from community_groups where id = new.group_id for no key update;
        if target.capacity is null then
            return new;
        end if;
        select count(*) into members from memberships
        where group_id = new.group_id and person_id <> new.person_id and status <> 'left';
        if members >= target.capacity then
            raise exception 'group "%" is full: capacity %, % members', target.code, target.capacity, members
                using errcode = 'CB001', hint = 'raise the group''s capacity or choose another group';
        end if;
        return new;
    end $$;
    drop trigger memberships_enforce_capacity on memberships;
    create trigger memberships_enforce_capacity before insert or update of group_id, status on memberships
        for each row execute function enforce_group_capacity();

    -- A membership that has ended, or whose group is archived, tells no leader about a join.
    create function skip_notification_of_inactive_membership() returns trigger language plpgsql as $$
    begin
        if exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                   where m.id = new.membership_id and (m.status = 'left' or g.archived_at is not null)) then
            return null;
        end if;
        return new;
    end $$;
    create trigger notifications_skip_inactive_membership before insert on notifications
        for each row execute function skip_notification_of_inactive_membership();

    alter table import_runs add column rows_restored integer not null default 0,
        add column rows_archived integer not null default 0,
        add column undone_at timestamptz;

    -- Written for every row a run changes, so it is kept lean: one index, which also finds a run's
    -- changes, and no foreign key to import_runs (run_id is an import_runs id).
    create table run_changes (
        id bigint generated always as identity,
        run_id bigint not null,
        table_name text not null,
        -- The row's id; NULL for the rows of list tables (group_leaders ...), whose images name their key.
        row_id bigint,
        operation text not null check (operation in ('insert', 'update', 'delete', 'archive', 'end', 'restore', 'forget')),
        before jsonb,
        after jsonb,
        changed_at timestamptz not null default now(),
        primary key (run_id, id)
    );

    create function run_change_operation(before jsonb, after jsonb) returns text immutable language sql as $$
        select case
            when before->'archived_at' = 'null' and after->'archived_at' <> 'null' then 'archive'
            when before->'ended_at' = 'null' and after->'ended_at' <> 'null' then 'end'
            when before->'archived_at' <> 'null' and after->'archived_at' = 'null'
                or before->'ended_at' <> 'null' and after->'ended_at' = 'null' then 'restore'
            else 'update'
        end
    $$;

    -- Images are written in UTC, so `undo` compares them with the rows as they are now whatever the
    -- session's time zone.
    create function record_run_insert() returns trigger language plpgsql set timezone to 'UTC' as $$
    declare
        run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
    begin
        if run is not null then
            insert into run_changes (run_id, table_name, row_id, operation, after)
            select run, tg_table_name, (image->>'id')::bigint, 'insert', image
            from new_rows new_row, lateral to_jsonb(new_row) image;
        end if;
        return null;
    end $$;

    create function record_run_delete() returns trigger language plpgsql set timezone to 'UTC' as $$
    declare
        run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
    begin
        if run is not null then
            insert into run_changes (run_id, table_name, row_id, operation, before)
            select run, tg_table_name, (image->>'id')::bigint, 'delete', image
            from old_rows old_row, lateral to_jsonb(old_row) image;
        end if;
        return null;
    end $$;

    -- Old and new rows are paired on the table's primary key.
    create function record_run_update() returns trigger language plpgsql set timezone to 'UTC' as $$
    declare
        run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
        key text;
    begin
        if run is null then
            return null;
        end if;
        select string_agg(quote_ident(a.attname), ', ') into key
        from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = tg_relid and i.indisprimary;
        execute format($sql$
            insert into run_changes (run_id, table_name, row_id, operation, before, after)
            select $1, $2, (after_image->>'id')::bigint, run_change_operation(before_image, after_image),
                   before_image, after_image
            from old_rows old_row join new_rows new_row using (%s),
                 lateral to_jsonb(old_row) before_image, lateral to_jsonb(new_row) after_image
            $sql$, key) using run, tg_table_name;
        return null;
    end $$;

    do $$
    declare
        t text;
    begin
        foreach t in array array['campuses', 'ministries', 'people', 'person_ministries', 'ministry_teams',
            'team_leaders', 'community_groups', 'group_leaders', 'memberships', 'events', 'event_ministries',
            'summer_missions', 'resources', 'resource_topics']
        loop
            execute format('create trigger %I after insert on %I referencing new table as new_rows
                            for each statement execute function record_run_insert()', t || '_record_run_insert', t);
            execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                            for each statement execute function record_run_update()', t || '_record_run_update', t);
            execute format('create trigger %I after delete on %I referencing old table as old_rows
                            for each statement execute function record_run_delete()', t || '_record_run_delete', t);
        end loop;
    end $$;

    -- `undo` puts rows back exactly as they were, their updated_at included.
    create or replace function touch_updated_at() returns trigger language plpgsql as $$
    begin
        if current_setting('crubatch.undoing', true) is distinct from 'on' then
            new.updated_at := now();
        end if;
        return new;
    end $$;
    """#)
}
