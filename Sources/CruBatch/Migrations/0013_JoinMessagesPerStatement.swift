extension Migration {
    /// The messages of new memberships (`joined` to each leader of the group, `welcome` to the student
    /// when the transaction sets `crubatch.welcome`) are queued per statement over the inserted rows,
    /// as migration 11 queues the ride messages: a `place` that adds thousands of members pays one
    /// set-based insert and at most one `pg_notify`, not a few queries and a notify per membership.
    /// The keys, the statuses and the notifications' own check (no message about an ended membership
    /// or an archived group, which also keeps such a row from counting as queued) are those of
    /// migration 8's row trigger; the messages are queued in the memberships' order, each one's
    /// `joined` before its `welcome`.
    ///
    /// The capacity check stays per row, with the same lock and count, but counts through the
    /// memberships' `(group_id, person_id)` index whatever the table's statistics say.
    static let joinMessagesPerStatement = Migration(version: 13, name: "join messages queued per statement", sql: #"""
    -- A session caches the check's plan: planned while the table is empty or nearly (a first
    -- placement), its count scanned every membership for each new one, which made one big insert
    -- quadratic (1.2 s of 10,000 answers' 5,941 joins). Without sequential scans it reads the group's
    -- members from the index.
    alter function enforce_group_capacity() set enable_seqscan = off;

    create or replace function queue_join_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
        select q.kind, q.membership_id, q.recipient_id, q.kind || ':' || q.membership_id || ':' || q.recipient_id,
               notification_initial_status()
        from (select 'joined' as kind, m.id as membership_id, gl.person_id as recipient_id, 0 as turn
              from new_rows m join group_leaders gl on gl.group_id = m.group_id
              union all
              select 'welcome', m.id, m.person_id, 1
              from new_rows m
              where current_setting('crubatch.welcome', true) = 'on') q
        order by q.membership_id, q.turn, q.recipient_id
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'memberships');
        end if;
        return null;
    end $$;
    drop trigger memberships_queue_notifications on memberships;
    create trigger memberships_queue_notifications after insert on memberships
        referencing new table as new_rows for each statement execute function queue_join_notifications();
    """#)
}
