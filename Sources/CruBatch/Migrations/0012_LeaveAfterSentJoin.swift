extension Migration {
    /// A membership that ends cancels the messages still pending about it before it decides who hears
    /// of the leave. A join `notify` is sending at that moment is locked: the cancelling waits for it,
    /// finds it sent and leaves it, so the leader who was told of the join is told of the leave. (The
    /// function it replaces looked for a pending join first, saw one being sent as still pending, and
    /// told that leader nothing.)
    static let leaveAfterSentJoin = Migration(version: 12, name: "a leave after a join being sent is told", sql: #"""
    create or replace function notify_membership_status() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        if new.status = 'left' then
            with unsent as (
                update notifications set status = 'cancelled', last_error = 'the membership ended before it was sent'
                where membership_id = new.id and status = 'pending' and kind <> 'left'
                returning kind, recipient_id
            )
            insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
            select 'left', new.id, gl.person_id,
                   'left:' || new.id || ':' || gl.person_id || ':' || extract(epoch from new.ended_at),
                   notification_initial_status()
            from group_leaders gl
            where gl.group_id = new.group_id
            and not exists (select 1 from unsent u where u.kind = 'joined' and u.recipient_id = gl.person_id)
            on conflict (dedupe_key) do nothing;
            get diagnostics queued = row_count;
            if queued > 0 and notification_initial_status() = 'pending' then
                perform pg_notify('crubatch_notifications', new.id::text);
            end if;
        else
            update notifications set status = 'cancelled', last_error = 'the student came back before it was sent'
            where membership_id = new.id and status = 'pending' and kind = 'left';
        end if;
        return null;
    end $$;
    """#)
}
