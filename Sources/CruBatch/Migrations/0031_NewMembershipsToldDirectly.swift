extension Migration {
    /// `queue_join_notifications()` inserts the join messages of memberships a writer adds as they
    /// are, without arbitrating their dedupe keys (`on conflict`): such a membership's id is fresh
    /// from its sequence, so no message names it yet. The arbitration was about a tenth of inserting
    /// the 5,941 memberships and 11,882 messages of `place` of 10,000 answers.
    ///
    /// An undo puts memberships back under their old ids, and their messages may be queued or sent
    /// already: during an undo (`crubatch.undoing`) the keys are arbitrated as before, so nobody is
    /// told twice.
    static let newMembershipsToldDirectly = Migration(version: 31, name: "new memberships told directly", sql: #"""
    create or replace function queue_join_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        if current_setting('crubatch.undoing', true) is distinct from 'on' then
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
            order by q.membership_id, q.turn, q.recipient_id;
        else
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
        end if;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'memberships');
        end if;
        return null;
    end $$;
    """#)
}
