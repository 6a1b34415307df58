extension Migration {
    /// Two trigger functions whose queries went quadratic when the planner's statistics say a table
    /// is empty, which is what ANALYZE (autovacuum's too) records of a table holding only dead rows:
    /// after a `--dry-run`, or an undo, of a large run. The same run then took 13 s instead of 3
    /// (`rides pair` of 13,514 pairings) or 20 s instead of 2 (`place` of 10,000 answers).
    ///
    /// - `queue_ride_messages` reads the pairings a statement started or ended from its transition
    ///   tables, whose size the planner knows, instead of looking them up again in `ride_pairings`
    ///   by id: it had compared each pairing with every id of the statement.
    /// - `skip_notification_of_inactive_membership`, run for each notification about a membership,
    ///   reads the membership and then its group, each by its primary key alone: joined, the
    ///   planner had scanned the whole (group, person) index for each notification, for its order.
    static let triggerLookupsRobustToStatistics = Migration(version: 22, name: "trigger lookups robust to empty-table statistics", sql: #"""
    create or replace function skip_notification_of_inactive_membership() returns trigger language plpgsql
    set enable_seqscan = off as $$
    declare
        membership record;
    begin
        select m.status, m.group_id into membership from memberships m where m.id = new.membership_id;
        if not found then
            return new;
        end if;
        if (membership.status = 'left' and new.kind <> 'left')
           or exists (select 1 from community_groups g where g.id = membership.group_id and g.archived_at is not null) then
            return null;
        end if;
        return new;
    end $$;

    create or replace function queue_ride_messages() returns trigger language plpgsql as $$
    declare
        started bigint[];
        ended bigint[];
        queued integer := 0;
        added integer;
    begin
        if tg_op = 'INSERT' then
            select array_agg(id) into started from new_rows where ended_at is null;
        else
            select array_agg(s.id) filter (where o.ended_at is not null and s.ended_at is null),
                   array_agg(s.id) filter (where o.ended_at is null and s.ended_at is not null)
            into started, ended
            from new_rows s join old_rows o using (id);
        end if;

        if ended is not null then
            perform cancel_ride_full(p.offer_id, p.leg)
            from (select distinct offer_id, leg from new_rows where id in (select unnest(ended))) p;
            -- The update waits for a notify that is sending one of them, then finds it sent: told.
            with withdrawn as (
                update notifications set status = 'cancelled', last_error = 'the pairing ended before it was sent'
                where ride_pairing_id in (select unnest(ended)) and kind = 'ride-paired' and status = 'pending'
                returning ride_pairing_id, recipient_id
            ), told as (
                select p.id, p.ended_at, t.kind,
                       case t.kind when 'ride-cancelled' then r.passenger_id else o.driver_id end as recipient
                from new_rows p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
                cross join lateral (select case when p.end_reason like 'offer-%' then 'ride-cancelled'
                                                when p.end_reason like 'request-%' then 'seat-freed' end) t (kind)
                where p.id in (select unnest(ended)) and t.kind is not null
            )
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            select t.kind, t.id, t.recipient, t.kind || ':' || t.id || ':' || t.recipient || ':' || extract(epoch from t.ended_at),
                   notification_initial_status()
            from told t
            where not exists (select 1 from withdrawn w where w.ride_pairing_id = t.id and w.recipient_id = t.recipient)
            on conflict (dedupe_key) do nothing;
            get diagnostics added = row_count;
            queued := queued + added;
        end if;

        if started is not null then
            -- Back before its end was told (an undo): that message is cancelled and, as if the pairing
            -- had never ended, nobody is told of it again.
            with withdrawn as (
                update notifications set status = 'cancelled', last_error = 'the pairing was restored before it was sent'
                where ride_pairing_id in (select unnest(started)) and kind in ('ride-cancelled', 'seat-freed') and status = 'pending'
                returning ride_pairing_id
            )
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            select 'ride-paired', p.id, who, 'ride-paired:' || p.id || ':' || who || ':' || extract(epoch from now()),
                   notification_initial_status()
            from new_rows p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
            cross join lateral unnest(array[o.driver_id, r.passenger_id]) who
            where p.id in (select unnest(started)) and p.id not in (select ride_pairing_id from withdrawn)
            on conflict (dedupe_key) do nothing;
            get diagnostics added = row_count;
            queued := queued + added;
            -- One per fill, named by the leg's latest pairing: a fill again after a seat was freed is another.
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            select 'ride-full', f.latest, f.driver_id, 'ride-full:' || f.latest || ':' || extract(epoch from now()),
                   notification_initial_status()
            from (select o.driver_id, o.seats, count(*) as riders, max(s.id) as latest
                  from (select distinct offer_id, leg from new_rows where id in (select unnest(started))) l
                  join ride_offers o on o.id = l.offer_id
                  join ride_pairings s on s.offer_id = l.offer_id and s.leg = l.leg and s.ended_at is null
                  group by o.id, l.leg) f
            where f.riders >= f.seats
            on conflict (dedupe_key) do nothing;
            get diagnostics added = row_count;
            queued := queued + added;
        end if;

        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'rides');
        end if;
        return null;
    end $$;
    """#)
}
