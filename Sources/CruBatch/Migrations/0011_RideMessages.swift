extension Migration {
    /// Messages about rides, queued by triggers on `ride_pairings` so every writer (`rides pair`,
    /// `rides cancel`, an import of status `cancelled`, the app) produces them the same way
    /// (docs/ARCHITECTURE.md, "The outbox"). Each is about one pairing (one seat of one car on one
    /// leg), named by `notifications.ride_pairing_id`:
    ///
    /// - `ride-paired` to the driver and to the passenger when a pairing becomes active (inserted,
    ///   or restored by an undo). A pairing restored while the message of its end is still pending
    ///   tells nobody anything: that message is cancelled instead, as if it had never ended.
    /// - `ride-full` to the driver when a pairing takes the last seat of its leg: one per fill,
    ///   keyed by the leg's latest pairing, however many rows one statement adds.
    /// - When a pairing ends: `ride-cancelled` to the passenger if the driver's side ended it
    ///   (`offer-cancelled`, `offer-changed`), `seat-freed` to the driver if the passenger's did
    ///   (`request-cancelled`, `request-changed`); never to someone whose `ride-paired` about it
    ///   was still pending, which is cancelled instead. A pending `ride-full` of that leg is
    ///   cancelled: the car is no longer full.
    /// - A pairing deleted (an undo of the run that made it, its event deleted) cancels what is
    ///   pending about it, and tells nobody.
    ///
    /// The triggers work statement by statement over transition tables, so a `rides pair` that seats
    /// thousands of passengers costs a few set-based statements, not a few per pairing.
    /// `crubatch.notify = off` queues them all as `suppressed`, as it does the membership messages.
    static let rideMessages = Migration(version: 11, name: "ride messages: ride-paired, ride-full, ride-cancelled, seat-freed", sql: #"""
    insert into notification_kinds (kind, description) values
        ('ride-paired', 'a passenger was given a seat in a car for one leg; to the driver and to the passenger, each with the other''s contacts'),
        ('ride-full', 'the last seat of a car''s leg was taken; to the driver'),
        ('ride-cancelled', 'the driver no longer takes a passenger on a leg (the offer was cancelled or changed); to the passenger'),
        ('seat-freed', 'a passenger no longer rides on a leg (the request was cancelled or changed); to the driver');

    alter table notifications add column ride_pairing_id bigint references ride_pairings on delete set null;
    create index notifications_ride_pairing_id on notifications (ride_pairing_id);

    -- Only a membership's notifications can be about an inactive membership: the check, a query per
    -- row, is skipped for the others (it was most of the cost of queueing a big pairing's messages).
    drop trigger notifications_skip_inactive_membership on notifications;
    create trigger notifications_skip_inactive_membership before insert on notifications
        for each row when (new.membership_id is not null) execute function skip_notification_of_inactive_membership();

    -- A pending ride-full of a leg that lost a passenger is wrong: the car is no longer full.
    create function cancel_ride_full(offer bigint, way text) returns void language sql as $$
        update notifications n set status = 'cancelled', last_error = 'a seat of the car was freed before it was sent'
        from ride_pairings s
        where n.ride_pairing_id = s.id and n.kind = 'ride-full' and n.status = 'pending'
        and s.offer_id = offer and s.leg = way
    $$;

    -- Statement by statement, so `rides pair` seating thousands costs a few set-based statements:
    -- the pairings that ended tell the other side of whoever ended them, unless they never heard of
    -- them; the pairings that became active (inserted, or restored by an undo) tell the driver and the
    -- passenger, and the driver when the car's leg is full.
    create function queue_ride_messages() returns trigger language plpgsql as $$
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
            from (select distinct offer_id, leg from ride_pairings where id in (select unnest(ended))) p;
            -- The update waits for a notify that is sending one of them, then finds it sent: told.
            with withdrawn as (
                update notifications set status = 'cancelled', last_error = 'the pairing ended before it was sent'
                where ride_pairing_id in (select unnest(ended)) and kind = 'ride-paired' and status = 'pending'
                returning ride_pairing_id, recipient_id
            ), told as (
                select p.id, p.ended_at, t.kind,
                       case t.kind when 'ride-cancelled' then r.passenger_id else o.driver_id end as recipient
                from ride_pairings p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
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
            from ride_pairings p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
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
                  from (select distinct offer_id, leg from ride_pairings where id in (select unnest(started))) l
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
    create trigger ride_pairings_queue_messages_on_insert after insert on ride_pairings
        referencing new table as new_rows for each statement execute function queue_ride_messages();
    create trigger ride_pairings_queue_messages_on_update after update on ride_pairings
        referencing old table as old_rows new table as new_rows for each statement execute function queue_ride_messages();

    -- Before the foreign key sets ride_pairing_id to null, while the notifications can still be found.
    create function cancel_notifications_of_deleted_pairing() returns trigger language plpgsql as $$
    begin
        update notifications set status = 'cancelled', last_error = 'the pairing was deleted before it was sent'
        where ride_pairing_id = old.id and status = 'pending';
        if old.ended_at is null then
            perform cancel_ride_full(old.offer_id, old.leg);
        end if;
        return old;
    end $$;
    create trigger ride_pairings_cancel_notifications before delete on ride_pairings
        for each row execute function cancel_notifications_of_deleted_pairing();
    """#)
}
