extension Migration {
    /// Group capacity enforced by the database for every writer (the app, `import`, `place`), and
    /// notifications cancelled when the membership they announce is deleted before they are sent.
    static let capacityAndOutbox = Migration(version: 4, name: "group capacity, cancelled notifications", sql: #"""
    -- Every membership holds a seat, pending ones too, as import and place count them; the student's
    -- own (an insert that will conflict and do nothing) takes no second one. Locking the group's row
    -- makes writers adding to one group take turns until each commits, so the count (a new snapshot
    -- per statement under READ COMMITTED) includes every member already committed.
    create function enforce_group_capacity() returns trigger language plpgsql as $$
    declare
        target record;
        members integer;
    begin
        select code, capacity into target from community_groups where id = new.group_id for no key update;
        if target.capacity is null then
            return new;
        end if;
        select count(*) into members from memberships where group_id = new.group_id and person_id <> new.person_id;
        if members >= target.capacity then
            raise exception 'group "%" is full: capacity %, % members', target.code, target.capacity, members
                using errcode = 'CB001', hint = 'raise the group''s capacity or choose another group';
        end if;
        return new;
    end $$;

    create trigger memberships_enforce_capacity before insert or update of group_id on memberships
        for each row execute function enforce_group_capacity();

    alter table notifications drop constraint notifications_status_check,
        add constraint notifications_status_check
            check (status in ('pending', 'sent', 'failed', 'dead', 'skipped', 'cancelled'));

    -- Before the foreign key sets membership_id to null, while the notification can still be found.
    -- One being sent is locked by notify: this waits, and finds it sent.
    create function cancel_member_joined() returns trigger language plpgsql as $$
    begin
        update notifications set status = 'cancelled', last_error = 'the membership was deleted before it was sent'
        where membership_id = old.id and status = 'pending';
        return old;
    end $$;

    create trigger memberships_cancel_notifications before delete on memberships
        for each row execute function cancel_member_joined();

    update notifications set status = 'cancelled', last_error = 'the membership was deleted before it was sent'
    where status = 'pending' and membership_id is null;
    """#)
}
