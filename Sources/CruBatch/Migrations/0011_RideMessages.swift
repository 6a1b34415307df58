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
    ///   keyed by the pairing that filled it, however many rows one statement adds.
    /// - When a pairing ends: `ride-cancelled` to the passenger if the driver's side ended it
    ///   (`offer-cancelled`, `offer-changed`), `seat-freed` to the driver if the passenger's did
    ///   (`request-cancelled`, `request-changed`); never to someone whose `ride-paired` about it
    ///   was still pending, which is cancelled instead. A pending `ride-full` of that leg is
    ///   cancelled: the car is no longer full.
    /// - A pairing deleted (an undo of the run that made it, its event deleted) cancels what is
    ///   pending about it, and tells nobody.
    ///
    /// `crubatch.notify = off` queues them all as `suppressed`, as it does the membership messages.
    static let rideMessages = Migration(version: 11, name: "ride messages: ride-paired, ride-full, ride-cancelled, seat-freed", sql: #"""
    insert into notification_kinds (kind, description) values
        ('ride-paired', 'a passenger was given a seat in a car for one leg; to the driver and to the passenger, each with the other''s contacts'),
        ('ride-full', 'the last seat of a car''s leg was taken; to the driver'),
        ('ride-cancelled', 'the driver no longer takes a passenger on a leg (the offer was cancelled or changed); to the passenger'),
        ('seat-freed', 'a passenger no longer rides on a leg (the request was cancelled or changed); to the driver');

    alter table notifications add column ride_pairing_id bigint references ride_pairings on delete set null;
    create index notifications_ride_pairing_id on notifications (ride_pairing_id);

    -- A pairing became active: each of the two is told, and the driver when it took the car's last seat on its leg.
    create function queue_ride_pairing_start() returns trigger language plpgsql as $$
    declare
        driver bigint;
        passenger bigint;
        seats integer;
        last_pairing bigint;
        riders integer;
        queued integer;
        filled integer := 0;
    begin
        select o.driver_id, o.seats, r.passenger_id into driver, seats, passenger
        from ride_offers o, ride_requests r where o.id = new.offer_id and r.id = new.request_id;
        -- Back before its end was told (an undo): that message is cancelled and, as if the pairing had
        -- never ended, nobody is told of it again.
        with withdrawn as (
            update notifications set status = 'cancelled', last_error = 'the pairing was restored before it was sent'
            where ride_pairing_id = new.id and kind in ('ride-cancelled', 'seat-freed') and status = 'pending'
            returning recipient_id
        )
        insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
        select 'ride-paired', new.id, who, 'ride-paired:' || new.id || ':' || who || ':' || extract(epoch from now()),
               notification_initial_status()
        from unnest(array[driver, passenger]) who
        where not exists (select 1 from withdrawn)
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        -- Row triggers run after their statement, so every row of a statement that filled the car sees
        -- it full: they all name the same fill, its latest pairing, and the key lets one through.
        select count(*), max(id) into riders, last_pairing from ride_pairings
        where offer_id = new.offer_id and leg = new.leg and ended_at is null;
        if riders >= seats then
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            values ('ride-full', last_pairing, driver, 'ride-full:' || last_pairing || ':' || extract(epoch from now()),
                    notification_initial_status())
            on conflict (dedupe_key) do nothing;
            get diagnostics filled = row_count;
        end if;
        if queued + filled > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'ride-pairing ' || new.id);
        end if;
        return null;
    end $$;
    create trigger ride_pairings_queue_start after insert on ride_pairings
        for each row when (new.ended_at is null) execute function queue_ride_pairing_start();
    create trigger ride_pairings_queue_restart after update of ended_at on ride_pairings
        for each row when (old.ended_at is not null and new.ended_at is null) execute function queue_ride_pairing_start();

    -- A pending ride-full of a leg that lost a passenger is wrong: the car is no longer full.
    create function cancel_ride_full(offer bigint, way text, reason text) returns void language sql as $$
        update notifications n set status = 'cancelled', last_error = reason
        from ride_pairings s
        where n.ride_pairing_id = s.id and n.kind = 'ride-full' and n.status = 'pending'
        and s.offer_id = offer and s.leg = way
    $$;

    -- A pairing ended: the other side of whoever ended it is told, unless they never heard of it.
    create function queue_ride_pairing_end() returns trigger language plpgsql as $$
    declare
        told_kind text := case when new.end_reason like 'offer-%' then 'ride-cancelled'
                               when new.end_reason like 'request-%' then 'seat-freed' end;
        recipient bigint;
        queued integer;
    begin
        select case told_kind when 'ride-cancelled' then r.passenger_id else o.driver_id end into recipient
        from ride_offers o, ride_requests r where o.id = new.offer_id and r.id = new.request_id;
        perform cancel_ride_full(new.offer_id, new.leg, 'a seat of the car was freed before it was sent');
        -- The update waits for a notify that is sending one of them, then finds it sent: told.
        with withdrawn as (
            update notifications set status = 'cancelled', last_error = 'the pairing ended before it was sent'
            where ride_pairing_id = new.id and kind = 'ride-paired' and status = 'pending'
            returning recipient_id
        )
        insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
        select told_kind, new.id, recipient,
               told_kind || ':' || new.id || ':' || recipient || ':' || extract(epoch from new.ended_at),
               notification_initial_status()
        where told_kind is not null and recipient not in (select recipient_id from withdrawn)
        on conflict (dedupe_key) do nothing;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'ride-pairing ' || new.id);
        end if;
        return null;
    end $$;
    create trigger ride_pairings_queue_end after update of ended_at on ride_pairings
        for each row when (old.ended_at is null and new.ended_at is not null) execute function queue_ride_pairing_end();

    -- Before the foreign key sets ride_pairing_id to null, while the notifications can still be found.
    create function cancel_notifications_of_deleted_pairing() returns trigger language plpgsql as $$
    begin
        update notifications set status = 'cancelled', last_error = 'the pairing was deleted before it was sent'
        where ride_pairing_id = old.id and status = 'pending';
        if old.ended_at is null then
            perform cancel_ride_full(old.offer_id, old.leg, 'a seat of the car was freed before it was sent');
        end if;
        return old;
    end $$;
    create trigger ride_pairings_cancel_notifications before delete on ride_pairings
        for each row execute function cancel_notifications_of_deleted_pairing();
    """#)
}
