extension Migration {
    /// Two checks that ran a query or two for every row now run once per statement: together they
    /// were a sixth of what `place` of 10,000 answers spent in the database (5,941 memberships,
    /// 11,882 messages about them).
    ///
    /// - Capacity: the groups a statement brings members into (a membership added, moved to another
    ///   group, or made current again) are locked in id order, so writers adding to one group still
    ///   take turns until each commits; then one query (a new snapshot under READ COMMITTED) counts
    ///   their current members, every committed one included, and a group left over its capacity
    ///   fails the statement with CB001, naming the group, its capacity and its members before the
    ///   statement. A statement that only rewrites a membership's status or group with the same
    ///   value brings no one in, and is no longer refused for a group already over capacity.
    /// - The join messages (`joined`, `welcome`) leave out, in the statement that queues them, the
    ///   memberships that have ended and those of archived groups, which the check per message row
    ///   did; it still runs for the other messages about a membership (`left`), and for a join
    ///   message that a writer inserts itself rather than the memberships trigger.
    ///
    /// Neither joins the statement's rows with a table whose statistics may say it is empty (after a
    /// dry run): a first try at the message check as one such join, planned on that, compared every
    /// message with every membership (17 s instead of 1 for that `place`). The capacity check counts
    /// each group's members from the (group, person) index, as the check per row did.
    static let membershipChecksPerStatement = Migration(version: 23, name: "membership checks per statement", sql: #"""
    drop trigger memberships_enforce_capacity on memberships;
    drop function enforce_group_capacity();

    create function enforce_group_capacity() returns trigger language plpgsql set enable_seqscan = off as $$
    declare
        groups bigint[];
        arriving bigint[];
        crowded record;
    begin
        if tg_op = 'INSERT' then
            select array_agg(group_id order by group_id), array_agg(n order by group_id) into groups, arriving
            from (select group_id, count(*) as n from new_rows where status <> 'left' group by group_id) a;
        else
            select array_agg(group_id order by group_id), array_agg(n order by group_id) into groups, arriving
            from (select s.group_id, count(*) as n from new_rows s join old_rows o using (id)
                  where s.status <> 'left' and (o.status = 'left' or o.group_id <> s.group_id)
                  group by s.group_id) a;
        end if;
        if groups is null then
            return null;
        end if;
        perform 1 from community_groups where id = any(groups) and capacity is not null order by id for no key update;
        select c.code, c.capacity, c.members - c.arriving as members into crowded
        from (select g.code, g.capacity, a.n as arriving,
                     (select count(*) from memberships m where m.group_id = g.id and m.status <> 'left') as members
              from unnest(groups, arriving) a (group_id, n) join community_groups g on g.id = a.group_id
              where g.capacity is not null) c
        where c.members > c.capacity
        order by c.code limit 1;
        if found then
            raise exception 'group "%" is full: capacity %, % members', crowded.code, crowded.capacity, crowded.members
                using errcode = 'CB001', hint = 'raise the group''s capacity or choose another group';
        end if;
        return null;
    end $$;
    create trigger memberships_enforce_capacity_on_insert after insert on memberships
        referencing new table as new_rows for each statement execute function enforce_group_capacity();
    create trigger memberships_enforce_capacity_on_update after update on memberships
        referencing old table as old_rows new table as new_rows for each statement execute function enforce_group_capacity();

    create or replace function queue_join_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        with joining as (
            select m.id, m.group_id, m.person_id from new_rows m
            where m.status <> 'left' and m.group_id not in (select id from community_groups where archived_at is not null))
        insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
        select q.kind, q.membership_id, q.recipient_id, q.kind || ':' || q.membership_id || ':' || q.recipient_id,
               notification_initial_status()
        from (select 'joined' as kind, m.id as membership_id, gl.person_id as recipient_id, 0 as turn
              from joining m join group_leaders gl on gl.group_id = m.group_id
              union all
              select 'welcome', m.id, m.person_id, 1
              from joining m
              where current_setting('crubatch.welcome', true) = 'on') q
        order by q.membership_id, q.turn, q.recipient_id
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'memberships');
        end if;
        return null;
    end $$;

    -- The join messages the trigger above queues (inside a trigger: depth 1) are checked there; any
    -- other membership message, and a join message a writer inserts itself (an undo restoring one),
    -- is still checked row by row.
    drop trigger notifications_skip_inactive_membership on notifications;
    create trigger notifications_skip_inactive_membership before insert on notifications
        for each row when (new.membership_id is not null
                           and (new.kind not in ('joined', 'welcome') or pg_trigger_depth() = 0))
        execute function skip_notification_of_inactive_membership();
    """#)
}
