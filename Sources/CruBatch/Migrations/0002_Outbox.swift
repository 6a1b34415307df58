extension Migration {
    /// The leader-notification outbox trigger (docs/ARCHITECTURE.md, "The outbox") and the CSV-injection guard used
    /// by roster exports.
    static let outbox = Migration(version: 2, name: "notification outbox trigger", sql: #"""
    create function queue_member_joined() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        insert into notifications (kind, membership_id, recipient_id, dedupe_key)
        select 'member-joined', new.id, gl.person_id, 'member-joined:' || new.id || ':' || gl.person_id
        from group_leaders gl
        where gl.group_id = new.group_id
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if queued > 0 then
            perform pg_notify('crubatch_notifications', new.id::text);
        end if;
        return null;
    end $$;

    create trigger memberships_queue_notifications after insert on memberships
        for each row execute function queue_member_joined();

    create function csv_safe(value text) returns text immutable language sql as $$
        select case when value ~ '^[-=+@\t\r]' then '''' || value else value end
    $$;
    """#)
}
