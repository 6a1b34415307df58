extension Migration {
    /// Messages for everyone a membership concerns (docs/ARCHITECTURE.md, "The outbox"):
    ///
    /// - The kinds of message are rows of `notification_kinds`, which `notifications.kind` references:
    ///   adding a kind is one `insert` in a later migration, never a rewritten CHECK list.
    ///   `member-joined` becomes `joined`; `welcome` (to the student) and `left` (to each leader) join it.
    /// - A notification names what it is about with a nullable foreign key per subject table
    ///   (`membership_id` for these three kinds).
    /// - A writer can queue its joins' notifications as `suppressed` (never sent, counted by `status`)
    ///   by setting `crubatch.notify` to `off` in its transaction, and ask for the students' welcomes
    ///   by setting `crubatch.welcome` to `on`, as `crubatch.run_id` asks for the change log.
    /// - A membership that ends queues `left` to each leader who was not still waiting to hear of the
    ///   join, and cancels the messages still pending about it; one that comes back cancels a `left`
    ///   still pending.
    static let messageKinds = Migration(version: 8, name: "message kinds: joined, welcome, left", sql: #"""
    create table notification_kinds (
        kind text primary key check (kind ~ '^[a-z]+(-[a-z]+)*$'),
        description text not null check (description <> '')
    );
    insert into notification_kinds (kind, description) values
        ('joined', 'a student joined a group; to each of its leaders'),
        ('welcome', 'a student was put in a group; to the student, with the leaders'' contacts'),
        ('left', 'a student left a group; to each of its leaders');

    alter table notifications drop constraint notifications_kind_check, alter column kind drop default;
    update notifications set kind = 'joined', dedupe_key = 'joined:' || substr(dedupe_key, length('member-joined:') + 1)
    where kind = 'member-joined';
    alter table notifications add constraint notifications_kind_fkey foreign key (kind) references notification_kinds;

    alter table notifications drop constraint notifications_status_check,
        add constraint notifications_status_check
        check (status in ('pending', 'sent', 'failed', 'dead', 'skipped', 'cancelled', 'suppressed'));

    -- The triggers below find a membership's notifications, and notify a recipient's.
    create index notifications_membership_id on notifications (membership_id);
    create index notifications_pending_recipient on notifications (recipient_id) where status = 'pending';

    -- How a notification queued now starts.
    create function notification_initial_status() returns text stable language sql as $$
        select case when current_setting('crubatch.notify', true) = 'off' then 'suppressed' else 'pending' end
    $$;

    create function queue_join_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
        welcomed integer := 0;
    begin
        insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
        select 'joined', new.id, gl.person_id, 'joined:' || new.id || ':' || gl.person_id, notification_initial_status()
        from group_leaders gl
        where gl.group_id = new.group_id
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if current_setting('crubatch.welcome', true) = 'on' then
            insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
            values ('welcome', new.id, new.person_id, 'welcome:' || new.id || ':' || new.person_id,
                    notification_initial_status())
            on conflict (dedupe_key) do nothing;
            get diagnostics welcomed = row_count;
        end if;
        if queued + welcomed > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', new.id::text);
        end if;
        return null;
    end $$;
    drop trigger memberships_queue_notifications on memberships;
    drop function queue_member_joined();
    create trigger memberships_queue_notifications after insert on memberships
        for each row execute function queue_join_notifications();

    create function notify_membership_status() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        if new.status = 'left' then
            insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
            select 'left', new.id, gl.person_id,
                   'left:' || new.id || ':' || gl.person_id || ':' || extract(epoch from new.ended_at),
                   notification_initial_status()
            from group_leaders gl
            where gl.group_id = new.group_id
            and not exists (select 1 from notifications n where n.membership_id = new.id and n.recipient_id = gl.person_id
                            and n.kind = 'joined' and n.status = 'pending')
            on conflict (dedupe_key) do nothing;
            get diagnostics queued = row_count;
            update notifications set status = 'cancelled', last_error = 'the membership ended before it was sent'
            where membership_id = new.id and status = 'pending' and kind <> 'left';
            if queued > 0 and notification_initial_status() = 'pending' then
                perform pg_notify('crubatch_notifications', new.id::text);
            end if;
        else
            update notifications set status = 'cancelled', last_error = 'the student came back before it was sent'
            where membership_id = new.id and status = 'pending' and kind = 'left';
        end if;
        return null;
    end $$;
    drop trigger memberships_cancel_notifications_when_ended on memberships;
    drop function cancel_notifications_of_ended_membership();
    create trigger memberships_notify_status after update of status on memberships
        for each row when ((new.status = 'left') <> (old.status = 'left'))
        execute function notify_membership_status();

    -- An archived group tells nobody anything; a membership that has ended announces only its end.
    create or replace function skip_notification_of_inactive_membership() returns trigger language plpgsql as $$
    begin
        if exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                   where m.id = new.membership_id
                   and (g.archived_at is not null or (m.status = 'left' and new.kind <> 'left'))) then
            return null;
        end if;
        return new;
    end $$;
    """#)
}
