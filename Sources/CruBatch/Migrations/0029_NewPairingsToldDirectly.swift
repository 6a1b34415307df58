extension Migration {
    /// `queue_ride_messages()` queues the messages of new pairings without the work that only a
    /// pairing made current again needs, and counts a car's riders before it looks its offer up.
    ///
    /// - The `ride-paired` messages of pairings a statement inserts are inserted as they are. No
    ///   message can name a pairing before it exists, so none is withdrawn and no dedupe key is
    ///   already taken: arbitrating each key (`on conflict`) was a seventh of inserting 7,000
    ///   pairings. A pairing that ends and comes back (an undo) goes as before.
    /// - `ride-full` groups the current pairings of the legs the statement seated per car first,
    ///   then joins their offers: it had joined each pairing to its offer before grouping them.
    static let newPairingsToldDirectly = Migration(version: 29, name: "new pairings told directly", sql: #"""
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

        if tg_op = 'INSERT' then
            -- New pairings: no message names them yet.
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            select 'ride-paired', p.id, who, 'ride-paired:' || p.id || ':' || who || ':' || extract(epoch from now()),
                   notification_initial_status()
            from new_rows p join ride_offers o on o.id = p.offer_id join ride_requests r on r.id = p.request_id
            cross join lateral unnest(array[o.driver_id, r.passenger_id]) who
            where p.ended_at is null;
            get diagnostics added = row_count;
            queued := queued + added;
        elsif started is not null then
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
        end if;

        if started is not null then
            -- One per fill, named by the leg's latest pairing: a fill again after a seat was freed is another.
            insert into notifications (kind, ride_pairing_id, recipient_id, dedupe_key, status)
            select 'ride-full', f.latest, o.driver_id, 'ride-full:' || f.latest || ':' || extract(epoch from now()),
                   notification_initial_status()
            from (select s.offer_id, count(*) as riders, max(s.id) as latest
                  from ride_pairings s
                  where s.ended_at is null
                    and (s.offer_id, s.leg) in (select offer_id, leg from new_rows where id = any(started))
                  group by s.offer_id, s.leg) f
            join ride_offers o on o.id = f.offer_id
            where f.riders >= o.seats
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
