extension Migration {
    /// The outbox checks its six references once per statement instead of once per row. A declared
    /// foreign key runs a query of its own for every row a statement inserts. `place` of 10,000
    /// answers queues 11,882 messages and `rides pair` of 10,000 requests 30,426, and the three
    /// references a message fills made together a sixth of each command's time. The outbox is
    /// always written in statements of many rows, by the triggers that queue messages.
    ///
    /// What the declared keys did is kept, by two trigger functions that take the references as
    /// arguments:
    /// - `check_references(column, table, key, ...)` runs on the referencing table. After an insert
    ///   it runs once per statement: the rows its values name are locked `for key share`, in key
    ///   order, as a declared key's check locks its row, and counted against its distinct values.
    ///   Until the writer commits, nobody can delete a row its messages name. After an update it runs for
    ///   each row whose reference changed to a value (not to null), as a declared key's check does.
    ///   A value that is not there fails the statement with 23503, naming the column, the value and
    ///   the table.
    /// - `apply_references(table, column, key, action)` runs on the referenced table. After a
    ///   statement deletes rows, it deletes the messages that name them (`cascade`: a person, a
    ///   ministry), sets the reference to null (`set null`: a membership, a ride pairing, a check-in),
    ///   or fails with 23503 while one still names them (`no action`: a kind). An update that
    ///   changes a referenced key fails the same way when messages name the old key and no row has it
    ///   any more.
    ///
    /// Both look rows up by key whatever the statistics say (`enable_seqscan` off), as the other
    /// triggers do.
    ///
    /// Under READ COMMITTED the two take turns as declared keys do. A delete waits for the writer
    /// that locked the row, then its statement sees that writer's messages and deletes them too.
    /// An insert that meets a delete it waited for fails with 23503.
    static let outboxReferencesPerStatement = Migration(version: 26, name: "outbox references per statement", sql: #"""
    create function check_references() returns trigger language plpgsql set enable_seqscan = off as $$
    declare
        i integer := 0;
        wanted bigint;
        held bigint;
        missing text;
    begin
        while i < tg_nargs loop
            if tg_level = 'STATEMENT' then
                loop
                    execute format($check$
                        select count(*), (select count(distinct %1$I) from new_rows)
                        from (select distinct %1$I as key from new_rows where %1$I is not null order by 1) w
                        cross join lateral (select from %2$I p where p.%3$I = w.key for key share) locked
                        $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) into held, wanted;
                    exit when held = wanted;
                    execute format($check$
                        select min(n.%1$I::text) from new_rows n
                        where n.%1$I is not null and not exists (select from %2$I p where p.%3$I = n.%1$I)
                        $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) into missing;
                    -- None missing now: a row came back between the two queries, and is locked again.
                    exit when missing is not null;
                end loop;
            else
                execute format($check$
                    select ($1).%1$I::text where ($1).%1$I is distinct from ($2).%1$I and ($1).%1$I is not null
                    and not exists (select from %2$I p where p.%3$I = ($1).%1$I for key share)
                    $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) using new, old into missing;
            end if;
            if missing is not null then
                raise foreign_key_violation using
                    message = format('insert or update on table "%s" violates its reference to table "%s"',
                                     tg_table_name, tg_argv[i + 1]),
                    detail = format('Key (%s)=(%s) is not present in table "%s".', tg_argv[i], missing, tg_argv[i + 1]);
            end if;
            i := i + 3;
        end loop;
        return null;
    end $$;

    create function apply_references() returns trigger language plpgsql set enable_seqscan = off as $$
    declare
        left_behind text;
    begin
        if tg_level = 'STATEMENT' and tg_argv[3] = 'cascade' then
            execute format('delete from %1$I c where c.%2$I in (select %3$I from old_rows)', tg_argv[0], tg_argv[1], tg_argv[2]);
        elsif tg_level = 'STATEMENT' and tg_argv[3] = 'set null' then
            execute format('update %1$I c set %2$I = null where c.%2$I in (select %3$I from old_rows)',
                           tg_argv[0], tg_argv[1], tg_argv[2]);
        elsif tg_level = 'STATEMENT' then
            execute format($check$
                select c.%2$I::text from %1$I c where c.%2$I in (select %3$I from old_rows)
                and not exists (select from %4$I p where p.%3$I = c.%2$I) limit 1
                $check$, tg_argv[0], tg_argv[1], tg_argv[2], tg_table_name) into left_behind;
        else
            execute format($check$
                select ($1).%3$I::text where ($1).%3$I is distinct from ($2).%3$I
                and exists (select from %1$I c where c.%2$I = ($1).%3$I)
                and not exists (select from %4$I p where p.%3$I = ($1).%3$I)
                $check$, tg_argv[0], tg_argv[1], tg_argv[2], tg_table_name) using old, new into left_behind;
        end if;
        if left_behind is not null then
            raise foreign_key_violation using
                message = format('update or delete on table "%s" violates the reference from table "%s"',
                                 tg_table_name, tg_argv[0]),
                detail = format('Key (%s)=(%s) is still referenced from table "%s".', tg_argv[2], left_behind, tg_argv[0]);
        end if;
        return null;
    end $$;

    alter table notifications drop constraint notifications_kind_fkey, drop constraint notifications_membership_id_fkey, drop constraint notifications_recipient_id_fkey, drop constraint notifications_ride_pairing_id_fkey, drop constraint notifications_attendance_id_fkey, drop constraint notifications_ministry_id_fkey;

    create trigger notifications_check_references_on_insert after insert on notifications
        referencing new table as new_rows for each statement execute function check_references('kind', 'notification_kinds', 'kind', 'membership_id', 'memberships', 'id', 'recipient_id', 'people', 'id', 'ride_pairing_id', 'ride_pairings', 'id', 'attendance_id', 'attendance', 'id', 'ministry_id', 'ministries', 'id');
    create trigger notifications_check_references_on_update after update on notifications for each row
        when (new.kind is distinct from old.kind and new.kind is not null
            or new.membership_id is distinct from old.membership_id and new.membership_id is not null
            or new.recipient_id is distinct from old.recipient_id and new.recipient_id is not null
            or new.ride_pairing_id is distinct from old.ride_pairing_id and new.ride_pairing_id is not null
            or new.attendance_id is distinct from old.attendance_id and new.attendance_id is not null
            or new.ministry_id is distinct from old.ministry_id and new.ministry_id is not null) execute function check_references('kind', 'notification_kinds', 'kind', 'membership_id', 'memberships', 'id', 'recipient_id', 'people', 'id', 'ride_pairing_id', 'ride_pairings', 'id', 'attendance_id', 'attendance', 'id', 'ministry_id', 'ministries', 'id');

    create trigger notifications_kind_on_delete after delete on notification_kinds
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'kind', 'kind', 'no action');
    create trigger notifications_kind_on_key_update after update of kind on notification_kinds
        for each row when (new.kind is distinct from old.kind)
        execute function apply_references('notifications', 'kind', 'kind', 'no action');
        create trigger notifications_membership_id_on_delete after delete on memberships
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'membership_id', 'id', 'set null');
    create trigger notifications_membership_id_on_key_update after update of id on memberships
        for each row when (new.id is distinct from old.id)
        execute function apply_references('notifications', 'membership_id', 'id', 'set null');
        create trigger notifications_recipient_id_on_delete after delete on people
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'recipient_id', 'id', 'cascade');
    create trigger notifications_recipient_id_on_key_update after update of id on people
        for each row when (new.id is distinct from old.id)
        execute function apply_references('notifications', 'recipient_id', 'id', 'cascade');
        create trigger notifications_ride_pairing_id_on_delete after delete on ride_pairings
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'ride_pairing_id', 'id', 'set null');
    create trigger notifications_ride_pairing_id_on_key_update after update of id on ride_pairings
        for each row when (new.id is distinct from old.id)
        execute function apply_references('notifications', 'ride_pairing_id', 'id', 'set null');
        create trigger notifications_attendance_id_on_delete after delete on attendance
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'attendance_id', 'id', 'set null');
    create trigger notifications_attendance_id_on_key_update after update of id on attendance
        for each row when (new.id is distinct from old.id)
        execute function apply_references('notifications', 'attendance_id', 'id', 'set null');
        create trigger notifications_ministry_id_on_delete after delete on ministries
        referencing old table as old_rows for each statement execute function apply_references('notifications', 'ministry_id', 'id', 'cascade');
    create trigger notifications_ministry_id_on_key_update after update of id on ministries
        for each row when (new.id is distinct from old.id)
        execute function apply_references('notifications', 'ministry_id', 'id', 'cascade');
    """#)
}
