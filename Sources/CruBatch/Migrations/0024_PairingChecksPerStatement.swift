extension Migration {
    /// The pairing check runs once per statement instead of once per row: for each of the 13,500
    /// pairings of `rides pair` at 10,000 requests it looked up the offer, the request and the car's
    /// riders again, a fifth of that command's time.
    ///
    /// The pairings a statement brings in (inserted current, an ended one made current again, or one
    /// moved to another offer, request or leg) are checked together:
    /// - their offers are locked in id order, so writers seating riders in one car still take turns
    ///   until each commits;
    /// - a pairing of an offer and a request of different events, of a driver with their own request,
    ///   or on a way one of them does not travel fails with 23514, as does one whose offer is not open
    ///   or whose request is not pending (the first such pairing by id is named);
    /// - then one query (a new snapshot under READ COMMITTED) counts each car's current riders per leg,
    ///   every committed one included, and a car left over its seats fails with CB002, naming the
    ///   offer, the leg, its seats and its passengers before the statement.
    ///
    /// A statement that only rewrites a current pairing as it is brings no one in. The offers and
    /// requests are looked up by primary key and the riders counted on the index of current pairings,
    /// whatever the statistics say (`enable_seqscan` off, as before).
    static let pairingChecksPerStatement = Migration(version: 24, name: "pairing checks per statement", sql: """
    drop trigger ride_pairings_check on ride_pairings;
    drop function check_ride_pairing();

    create function check_ride_pairings() returns trigger language plpgsql set enable_seqscan = off as $$
    declare
        ids bigint[];
        offers bigint[];
        requests bigint[];
        legs text[];
        wrong record;
        crowded record;
    begin
        if tg_op = 'INSERT' then
            select array_agg(id order by id), array_agg(offer_id order by id), array_agg(request_id order by id),
                   array_agg(leg order by id)
            into ids, offers, requests, legs
            from new_rows where ended_at is null;
        else
            select array_agg(s.id order by s.id), array_agg(s.offer_id order by s.id),
                   array_agg(s.request_id order by s.id), array_agg(s.leg order by s.id)
            into ids, offers, requests, legs
            from new_rows s join old_rows o using (id)
            where s.ended_at is null
              and (o.ended_at is not null or (o.offer_id, o.request_id, o.leg) <> (s.offer_id, s.request_id, s.leg));
        end if;
        if ids is null then
            return null;
        end if;
        perform 1 from ride_offers where id in (select unnest(offers)) order by id for no key update;

        select * into wrong
        from (select a.id, a.leg, o.id as offer_id, o.status as offer_status, r.id as request_id, r.status as request_status,
                     o.event_id <> r.event_id or o.driver_id = r.passenger_id
                     or not ride_direction_covers(o.direction, a.leg) or not ride_direction_covers(r.direction, a.leg) as apart
              from unnest(ids, offers, requests, legs) a (id, offer_id, request_id, leg)
              join ride_offers o on o.id = a.offer_id join ride_requests r on r.id = a.request_id) w
        where w.apart or w.offer_status <> 'open' or w.request_status <> 'pending'
        order by w.id limit 1;
        if found and wrong.apart then
            raise exception 'ride offer % cannot take ride request % on the "%" leg', wrong.offer_id, wrong.request_id, wrong.leg
                using errcode = '23514',
                      hint = 'a pairing joins an offer and a request of the same event, by two people, on a way both travel';
        elsif found then
            raise exception 'ride offer % is %, ride request % is %: only an open offer takes a pending request',
                wrong.offer_id, wrong.offer_status, wrong.request_id, wrong.request_status using errcode = '23514';
        end if;

        select c.offer_id, c.leg, c.seats, c.riders - c.arriving as riders into crowded
        from (select a.offer_id, a.leg, a.arriving, o.seats,
                     (select count(*) from ride_pairings p
                      where p.offer_id = a.offer_id and p.leg = a.leg and p.ended_at is null) as riders
              from (select offer_id, leg, count(*) as arriving from unnest(offers, legs) u (offer_id, leg)
                    group by offer_id, leg) a
              join ride_offers o on o.id = a.offer_id) c
        where c.riders > c.seats
        order by c.offer_id, c.leg limit 1;
        if found then
            raise exception 'ride offer % is full on the "%" leg: % seats, % passengers', crowded.offer_id, crowded.leg,
                crowded.seats, crowded.riders
                using errcode = 'CB002', hint = 'pair the request with another car';
        end if;
        return null;
    end $$;
    create trigger ride_pairings_check_on_insert after insert on ride_pairings
        referencing new table as new_rows for each statement execute function check_ride_pairings();
    create trigger ride_pairings_check_on_update after update on ride_pairings
        referencing old table as old_rows new table as new_rows for each statement execute function check_ride_pairings();
    """)
}
