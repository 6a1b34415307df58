extension Migration {
    /// Ride sharing for events (docs/ARCHITECTURE.md, "Rides").
    ///
    /// - `people.is_member`: people Cru knows as students or leaders are members; someone who only
    ///   asked for a ride is added as a non-member. Only members may drive.
    /// - `events.rideshare` says which ways an event shares rides: `no`, `to` (to the event), `from`
    ///   (back from it) or `both`. The change images of events in `run_changes` are rewritten the same
    ///   way, so `undo` of an earlier run puts back a value the new column takes.
    /// - `ride_offers` (a member drives, keyed by event and driver) and `ride_requests` (anyone asks,
    ///   keyed by event and passenger) are cancelled through their status, which stamps `ended_at`
    ///   as a membership's `left` does, so the change log calls it an end.
    /// - `ride_pairings` seats a request on an offer for one leg (`to` or `from`). A request's leg
    ///   has at most one active pairing; a trigger keeps every active pairing true to its offer and
    ///   request (same event, open offer, pending request, a leg both travel, a seat left: SQLSTATE
    ///   CB002 when the car is full). Cancelling an offer or a request, or changing it so a pairing
    ///   no longer fits (fewer seats, fewer ways), ends its pairings, whoever writes it.
    static let rides = Migration(version: 9, name: "ride sharing", sql: #"""
    alter table people add column is_member boolean not null default true,
        add constraint people_leaders_are_members check (is_member or not is_leader);

    alter table events alter column rideshare drop default;
    alter table events alter column rideshare type text using case when rideshare then 'both' else 'no' end;
    alter table events alter column rideshare set default 'no',
        add constraint events_rideshare check (rideshare in ('no', 'to', 'from', 'both'));

    update run_changes set
        before = case when jsonb_typeof(before->'rideshare') = 'boolean'
                      then jsonb_set(before, '{rideshare}', to_jsonb((case when (before->>'rideshare')::boolean then 'both' else 'no' end)::text))
                      else before end,
        after = case when jsonb_typeof(after->'rideshare') = 'boolean'
                     then jsonb_set(after, '{rideshare}', to_jsonb((case when (after->>'rideshare')::boolean then 'both' else 'no' end)::text))
                     else after end
    where table_name = 'events';

    -- Whether travelling `offered` ways (to, from or both) includes the way `wanted`.
    create function ride_direction_covers(offered text, wanted text) returns boolean immutable language sql as $$
        select offered = 'both' or offered = wanted
    $$;

    create table ride_offers (
        id bigint generated always as identity primary key,
        event_id bigint not null references events on delete cascade,
        driver_id bigint not null references people on delete cascade,
        direction text not null check (direction in ('to', 'from', 'both')),
        seats smallint not null check (seats between 1 and 8),
        departs_to timestamptz,
        departs_from timestamptz,
        pickup_location text not null check (pickup_location <> ''),
        latitude numeric(8, 6) check (latitude between -90 and 90),
        longitude numeric(9, 6) check (longitude between -180 and 180),
        postal_code text check (postal_code <> ''),
        status text not null default 'open' check (status in ('open', 'cancelled')),
        ended_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (event_id, driver_id),
        check ((latitude is null) = (longitude is null)),
        check (direction = 'from' or departs_to is not null),
        check (direction = 'to' or departs_from is not null),
        check ((status = 'cancelled') = (ended_at is not null))
    );
    create index ride_offers_driver_id on ride_offers (driver_id);

    create table ride_requests (
        id bigint generated always as identity primary key,
        event_id bigint not null references events on delete cascade,
        passenger_id bigint not null references people on delete cascade,
        direction text not null check (direction in ('to', 'from', 'both')),
        pickup_location text not null check (pickup_location <> ''),
        latitude numeric(8, 6) check (latitude between -90 and 90),
        longitude numeric(9, 6) check (longitude between -180 and 180),
        postal_code text check (postal_code <> ''),
        earliest_departure timestamptz,
        latest_departure timestamptz check (latest_departure >= earliest_departure),
        status text not null default 'pending' check (status in ('pending', 'cancelled')),
        ended_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (event_id, passenger_id),
        check ((latitude is null) = (longitude is null)),
        check ((status = 'cancelled') = (ended_at is not null))
    );
    create index ride_requests_passenger_id on ride_requests (passenger_id);

    create table ride_pairings (
        id bigint generated always as identity primary key,
        offer_id bigint not null references ride_offers on delete cascade,
        request_id bigint not null references ride_requests on delete cascade,
        leg text not null check (leg in ('to', 'from')),
        ended_at timestamptz,
        -- Why it ended: offer-cancelled, request-cancelled, offer-changed, request-changed, or what its writer says.
        end_reason text check (end_reason <> ''),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((ended_at is null) = (end_reason is null))
    );
    create unique index ride_pairings_active_leg on ride_pairings (request_id, leg) where ended_at is null;
    create index ride_pairings_active_offer on ride_pairings (offer_id, leg) where ended_at is null;

    create function ride_set_ended_at() returns trigger language plpgsql as $$
    begin
        new.ended_at := case when new.status = 'cancelled' then coalesce(new.ended_at, now()) end;
        return new;
    end $$;
    create trigger ride_offers_set_ended_at before insert or update of status, ended_at on ride_offers
        for each row execute function ride_set_ended_at();
    create trigger ride_requests_set_ended_at before insert or update of status, ended_at on ride_requests
        for each row execute function ride_set_ended_at();

    -- The offer's row is locked first, so two writers never both take its last seat.
    create function check_ride_pairing() returns trigger language plpgsql as $$
    declare
        offer ride_offers;
        request ride_requests;
        riders integer;
    begin
        if new.ended_at is not null then
            return new;
        end if;
        select * into offer from ride_offers where id = new.offer_id for no key update;
        select * into request from ride_requests where id = new.request_id;
        if offer.event_id <> request.event_id or offer.driver_id = request.passenger_id
           or not ride_direction_covers(offer.direction, new.leg) or not ride_direction_covers(request.direction, new.leg) then
            raise exception 'ride offer % cannot take ride request % on the "%" leg', offer.id, request.id, new.leg
                using errcode = '23514',
                      hint = 'a pairing joins an offer and a request of the same event, by two people, on a way both travel';
        end if;
        if offer.status <> 'open' or request.status <> 'pending' then
            raise exception 'ride offer % is %, ride request % is %: only an open offer takes a pending request',
                offer.id, offer.status, request.id, request.status using errcode = '23514';
        end if;
        select count(*) into riders from ride_pairings
        where offer_id = offer.id and leg = new.leg and ended_at is null and id <> new.id;
        if riders >= offer.seats then
            raise exception 'ride offer % is full on the "%" leg: % seats, % passengers', offer.id, new.leg, offer.seats, riders
                using errcode = 'CB002', hint = 'pair the request with another car';
        end if;
        return new;
    end $$;
    create trigger ride_pairings_check before insert or update on ride_pairings
        for each row execute function check_ride_pairing();

    -- An offer that is cancelled, travels fewer ways or has fewer seats lets go of the pairings that no
    -- longer fit (the latest ones first, when seats are taken away); their requests wait again.
    create function end_ride_pairings_of_offer() returns trigger language plpgsql as $$
    begin
        update ride_pairings p
        set ended_at = now(), end_reason = case when new.status = 'cancelled' then 'offer-cancelled' else 'offer-changed' end
        where p.offer_id = new.id and p.ended_at is null
        and (new.status = 'cancelled' or not ride_direction_covers(new.direction, p.leg)
             or p.id not in (select x.id from ride_pairings x
                             where x.offer_id = new.id and x.leg = p.leg and x.ended_at is null
                             order by x.created_at, x.id limit new.seats));
        return null;
    end $$;
    create trigger ride_offers_end_pairings after update of status, direction, seats on ride_offers
        for each row when (new.status = 'cancelled' and old.status <> 'cancelled'
                           or new.direction <> old.direction or new.seats < old.seats)
        execute function end_ride_pairings_of_offer();

    create function end_ride_pairings_of_request() returns trigger language plpgsql as $$
    begin
        update ride_pairings p
        set ended_at = now(), end_reason = case when new.status = 'cancelled' then 'request-cancelled' else 'request-changed' end
        where p.request_id = new.id and p.ended_at is null
        and (new.status = 'cancelled' or not ride_direction_covers(new.direction, p.leg));
        return null;
    end $$;
    create trigger ride_requests_end_pairings after update of status, direction on ride_requests
        for each row when (new.status = 'cancelled' and old.status <> 'cancelled' or new.direction <> old.direction)
        execute function end_ride_pairings_of_request();

    do $$
    declare
        t text;
    begin
        foreach t in array array['ride_offers', 'ride_requests', 'ride_pairings']
        loop
            execute format('create trigger %I before update on %I for each row execute function touch_updated_at()',
                           t || '_touch_updated_at', t);
            execute format('create trigger %I after insert on %I referencing new table as new_rows
                            for each statement execute function record_run_insert()', t || '_record_run_insert', t);
            execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                            for each statement execute function record_run_update()', t || '_record_run_update', t);
            execute format('create trigger %I after delete on %I referencing old table as old_rows
                            for each statement execute function record_run_delete()', t || '_record_run_delete', t);
        end loop;
    end $$;
    """#)
}
