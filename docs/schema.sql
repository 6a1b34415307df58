CREATE EXTENSION IF NOT EXISTS fuzzystrmatch WITH SCHEMA public;

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;

CREATE FUNCTION public.apply_references() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $_$
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
end $_$;

CREATE FUNCTION public.cancel_member_joined() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    update notifications set status = 'cancelled', last_error = 'the membership was deleted before it was sent'
    where membership_id = old.id and status = 'pending';
    return old;
end $$;

CREATE FUNCTION public.cancel_newcomers_who_joined() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    update notifications n set status = 'cancelled', last_error = 'they joined a group of the ministry before it was sent'
    from new_rows m join community_groups g on g.id = m.group_id join attendance a on a.person_id = m.person_id
    where m.status = 'active' and n.kind = 'newcomer' and n.status = 'pending'
    and n.attendance_id = a.id and n.ministry_id = g.ministry_id;
    return null;
end $$;

CREATE FUNCTION public.cancel_notifications_of_deleted_pairing() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    update notifications set status = 'cancelled', last_error = 'the pairing was deleted before it was sent'
    where ride_pairing_id = old.id and status = 'pending';
    if old.ended_at is null then
        perform cancel_ride_full(old.offer_id, old.leg);
    end if;
    return old;
end $$;

CREATE FUNCTION public.cancel_ride_full(offer bigint, way text) RETURNS void
    LANGUAGE sql
    AS $$
    update notifications n set status = 'cancelled', last_error = 'a seat of the car was freed before it was sent'
    from ride_pairings s
    where n.ride_pairing_id = s.id and n.kind = 'ride-full' and n.status = 'pending'
    and s.offer_id = offer and s.leg = way
$$;

CREATE FUNCTION public.check_references() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $_$
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
                    select count(locked.present), count(*)
                    from (select distinct %1$I as key from new_rows where %1$I is not null order by 1) w
                    left join lateral (select true as present from %2$I p where p.%3$I = w.key for key share) locked on true
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
end $_$;

CREATE FUNCTION public.check_ride_pairings() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
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

CREATE FUNCTION public.create_run_changes_view() RETURNS void
    LANGUAGE plpgsql
    AS $_$
begin
    execute 'create or replace view run_changes as
        select id, run_id, table_name, row_id, operation, before, after, changed_at from run_images'
        || (select string_agg(format(
               ' union all select i.change_id, i.change_run, %1$L::text, %2$s, ''insert''::text, null::jsonb,
                     to_jsonb(i) - ''{change_run,change_id,changed_at}''::text[], i.changed_at from %3$I i
                 union all select b.change_id, b.change_run, %1$L::text, a.row_id,
                     run_change_operation(b.image, a.image), b.image, a.image, b.changed_at
                 from (select u.change_run, u.change_id, u.changed_at,
                              to_jsonb(u) - ''{change_run,change_id,changed_at,change_after}''::text[] as image
                       from %4$I u where not u.change_after) b
                 join (select u.change_run, u.change_id, %5$s as row_id,
                              to_jsonb(u) - ''{change_run,change_id,changed_at,change_after}''::text[] as image
                       from %4$I u where u.change_after) a using (change_run, change_id)',
               c.relname, case when c.has_id then 'i.id' else 'null::bigint' end,
               run_inserted_table(c.relname), run_updated_table(c.relname),
               case when c.has_id then 'u.id' else 'null::bigint' end), '' order by c.relname)
            from run_logged_tables() t
            join lateral (select c.relname, exists (select from pg_attribute a where a.attrelid = c.oid
                                                    and a.attname = 'id' and not a.attisdropped) as has_id
                          from pg_class c where c.oid = t) c on true);
end $_$;

CREATE FUNCTION public.csv_safe(value text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    select case when value ~ '^[-=+@\t\r]' then '''' || value else value end
$$;

CREATE FUNCTION public.end_ride_pairings_of_offer() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION public.end_ride_pairings_of_request() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    update ride_pairings p
    set ended_at = now(), end_reason = case when new.status = 'cancelled' then 'request-cancelled' else 'request-changed' end
    where p.request_id = new.id and p.ended_at is null
    and (new.status = 'cancelled' or not ride_direction_covers(new.direction, p.leg));
    return null;
end $$;

CREATE FUNCTION public.enforce_group_capacity() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
declare
    groups bigint[];
    arriving bigint[];
    crowded record;
begin
    if tg_op = 'INSERT' then
        select array_agg(group_id order by group_id), array_agg(n order by group_id) into groups, arriving
        from (select group_id, count(*) as n from new_rows where status <> 'left' group by group_id) a;
    else
        select array_agg(group_id order by group_id), array_agg(n order by group_id) into groups, arriving
        from (select s.group_id, count(*) as n from new_rows s join old_rows o using (id)
              where s.status <> 'left' and (o.status = 'left' or o.group_id <> s.group_id)
              group by s.group_id) a;
    end if;
    if groups is null then
        return null;
    end if;
    perform 1 from community_groups where id = any(groups) and capacity is not null order by id for no key update;
    select c.code, c.capacity, c.members - c.arriving as members into crowded
    from (select g.code, g.capacity, a.n as arriving,
                 (select count(*) from memberships m where m.group_id = g.id and m.status <> 'left') as members
          from unnest(groups, arriving) a (group_id, n) join community_groups g on g.id = a.group_id
          where g.capacity is not null) c
    where c.members > c.capacity
    order by c.code limit 1;
    if found then
        raise exception 'group "%" is full: capacity %, % members', crowded.code, crowded.capacity, crowded.members
            using errcode = 'CB001', hint = 'raise the group''s capacity or choose another group';
    end if;
    return null;
end $$;

CREATE FUNCTION public.is_valid_code(code text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
    select code ~ '^[a-z0-9][a-z0-9._-]{0,62}$' and strpos(code, '..') = 0
$_$;

CREATE FUNCTION public.made_of_name(handle text, given text[], surname text[]) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
declare
    l text;
    g text;
    f text;
begin
    foreach l in array array_to_string(surname, '') || surname loop
        continue when l = '';
        foreach g in array array[case when right(handle, length(l)) = l then left(handle, length(handle) - length(l)) end,
                                 case when left(handle, length(l)) = l then substr(handle, length(l) + 1) end] loop
            continue when g is null;
            if g = '' then return true; end if;
            foreach f in array given loop
                if f = g or (length(g) <> 2 and left(f, length(g)) = g) then return true; end if;
            end loop;
        end loop;
        foreach f in array given loop
            if handle = f or handle = f || left(l, 1) then return true; end if;
        end loop;
    end loop;
    return false;
end
$$;

CREATE FUNCTION public.membership_set_ended_at() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    new.ended_at := case when new.status = 'left' then coalesce(new.ended_at, now()) end;
    return new;
end $$;

CREATE FUNCTION public.notification_initial_status() RETURNS text
    LANGUAGE sql STABLE
    AS $$
    select case when current_setting('crubatch.notify', true) = 'off' then 'suppressed' else 'pending' end
$$;

CREATE FUNCTION public.notify_membership_status() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION public.person_name_key(name text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, coalesce(name, ''))), '[^a-z]', '', 'g')
$$;

CREATE FUNCTION public.person_name_tokens(name text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select array_remove(regexp_split_to_array(regexp_replace(
        lower(public.unaccent('public.unaccent'::regdictionary, coalesce(name, ''))), '[''’`]', '', 'g'), '[^a-z]+'), '')
$$;

CREATE FUNCTION public.queue_join_notifications() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
declare
    queued integer;
begin
    if current_setting('crubatch.undoing', true) is distinct from 'on' then
        with joining as (
            select m.id, m.group_id, m.person_id from new_rows m
            where m.status <> 'left' and m.group_id not in (select id from community_groups where archived_at is not null))
        insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
        select q.kind, q.membership_id, q.recipient_id, q.kind || ':' || q.membership_id || ':' || q.recipient_id,
               notification_initial_status()
        from (select 'joined' as kind, m.id as membership_id, gl.person_id as recipient_id, 0 as turn
              from joining m join group_leaders gl on gl.group_id = m.group_id
              union all
              select 'welcome', m.id, m.person_id, 1
              from joining m
              where current_setting('crubatch.welcome', true) = 'on') q
        order by q.membership_id, q.turn, q.recipient_id;
    else
        with joining as (
            select m.id, m.group_id, m.person_id from new_rows m
            where m.status <> 'left' and m.group_id not in (select id from community_groups where archived_at is not null))
        insert into notifications (kind, membership_id, recipient_id, dedupe_key, status)
        select q.kind, q.membership_id, q.recipient_id, q.kind || ':' || q.membership_id || ':' || q.recipient_id,
               notification_initial_status()
        from (select 'joined' as kind, m.id as membership_id, gl.person_id as recipient_id, 0 as turn
              from joining m join group_leaders gl on gl.group_id = m.group_id
              union all
              select 'welcome', m.id, m.person_id, 1
              from joining m
              where current_setting('crubatch.welcome', true) = 'on') q
        order by q.membership_id, q.turn, q.recipient_id
        on conflict (dedupe_key) do nothing;
    end if;
    get diagnostics queued = row_count;
    if queued > 0 and notification_initial_status() = 'pending' then
        perform pg_notify('crubatch_notifications', 'memberships');
    end if;
    return null;
end $$;

CREATE FUNCTION public.queue_newcomer_notifications() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
declare
    queued integer;
begin
    insert into notifications (kind, attendance_id, ministry_id, dedupe_key, status)
    select 'newcomer', f.attendance_id, f.ministry_id, 'newcomer:' || f.attendance_id || ':' || f.ministry_id,
           notification_initial_status()
    from (select distinct on (a.person_id, em.ministry_id) a.id as attendance_id, em.ministry_id
          from new_rows a
          join people p on p.id = a.person_id and not p.is_leader
          join event_ministries em on em.event_id = a.event_id
          join ministries mi on mi.id = em.ministry_id and mi.contact_email is not null and mi.archived_at is null
          where not exists (select 1 from attendance o join event_ministries oe on oe.event_id = o.event_id
                            where o.person_id = a.person_id and oe.ministry_id = em.ministry_id
                            and o.id not in (select n.id from new_rows n))
          and not exists (select 1 from memberships m join community_groups g on g.id = m.group_id
                          where m.person_id = a.person_id and g.ministry_id = em.ministry_id
                          and m.status = 'active' and g.archived_at is null)
          order by a.person_id, em.ministry_id, a.checked_in_at, a.id) f
    order by f.attendance_id, f.ministry_id
    on conflict (dedupe_key) do nothing;
    get diagnostics queued = row_count;
    if queued > 0 and notification_initial_status() = 'pending' then
        perform pg_notify('crubatch_notifications', 'attendance');
    end if;
    return null;
end $$;

CREATE FUNCTION public.queue_ride_messages() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION public.record_run_delete() RETURNS trigger
    LANGUAGE plpgsql
    SET "TimeZone" TO 'UTC'
    AS $$
declare
    run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
begin
    if run is not null then
        insert into run_images (run_id, table_name, row_id, operation, before)
        select run, tg_table_name, (image->>'id')::bigint, 'delete', image
        from old_rows old_row, lateral to_jsonb(old_row) image;
    end if;
    return null;
end $$;

CREATE FUNCTION public.record_run_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
declare
    run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
    columns text;
begin
    if run is not null then
        columns := run_inserted_columns(tg_relid);
        execute format('insert into %I (change_run, change_id, changed_at, %s)
                        select $1, nextval(''run_images_id_seq''), now(), %s from new_rows',
                       run_inserted_table(tg_table_name), columns, columns) using run;
    end if;
    return null;
end $_$;

CREATE FUNCTION public.record_run_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
declare
    run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
    key text;
    copy text := run_updated_table(tg_table_name);
begin
    if run is null then
        return null;
    end if;
    select string_agg(quote_ident(a.attname), ', ') into key
    from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = tg_relid and i.indisprimary;
    execute format($sql$
        with pairs as materialized (
            select nextval('run_images_id_seq') as change_id, %1$s from old_rows join new_rows using (%1$s)),
        befores as (insert into %2$I (change_run, change_id, changed_at, change_after, %3$s)
                    select $1, p.change_id, now(), false, %4$s from old_rows o join pairs p using (%1$s))
        insert into %2$I (change_run, change_id, changed_at, change_after, %3$s)
        select $1, p.change_id, now(), true, %5$s from new_rows n join pairs p using (%1$s)
        $sql$, key, copy, run_copy_columns(tg_relid, copy), run_copy_columns(tg_relid, copy, 'o.'),
        run_copy_columns(tg_relid, copy, 'n.')) using run;
    return null;
end $_$;

CREATE FUNCTION public.ride_direction_covers(offered text, wanted text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    select offered = 'both' or offered = wanted
$$;

CREATE FUNCTION public.ride_set_ended_at() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    new.ended_at := case when new.status = 'cancelled' then coalesce(new.ended_at, now()) end;
    return new;
end $$;

CREATE FUNCTION public.run_change_operation(before jsonb, after jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    select case
        when before->'archived_at' = 'null' and after->'archived_at' <> 'null' then 'archive'
        when before->'ended_at' = 'null' and after->'ended_at' <> 'null' then 'end'
        when before->'archived_at' <> 'null' and after->'archived_at' = 'null'
            or before->'ended_at' <> 'null' and after->'ended_at' = 'null' then 'restore'
        else 'update'
    end
$$;

CREATE FUNCTION public.run_copy_columns(logged regclass, copy text, prefix text DEFAULT ''::text) RETURNS text
    LANGUAGE sql STABLE
    AS $$
    select string_agg(prefix || quote_ident(a.attname), ', ' order by a.attnum) from pg_attribute a
    where a.attrelid = logged and a.attnum > 0 and not a.attisdropped
    and exists (select from pg_attribute c
                where c.attrelid = copy::regclass and c.attname = a.attname and not c.attisdropped
                and c.attnum > run_copy_meta_columns((select relname from pg_class where oid = logged), copy))
$$;

CREATE FUNCTION public.run_copy_meta_columns(logged text, copy text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$
    select case when copy = run_updated_table(logged) then 4 else 3 end
$$;

CREATE FUNCTION public.run_inserted_columns(logged regclass) RETURNS text
    LANGUAGE sql STABLE
    AS $$
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) from pg_attribute a
    where a.attrelid = logged and a.attnum > 0 and not a.attisdropped
    and exists (select from pg_attribute c
                where c.attrelid = run_inserted_table((select relname from pg_class where oid = logged))::regclass
                and c.attname = a.attname and c.attnum > 3 and not c.attisdropped)
$$;

CREATE FUNCTION public.run_inserted_table(logged text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    select 'run_inserted_' || logged
$$;

CREATE FUNCTION public.run_logged_tables() RETURNS SETOF regclass
    LANGUAGE sql STABLE
    AS $$
    select c.oid::regclass from pg_class c
    where c.oid in (select t.tgrelid from pg_trigger t join pg_proc p on p.oid = t.tgfoid
                    where p.proname = 'record_run_insert')
    order by c.relname
$$;

CREATE FUNCTION public.run_updated_table(logged text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
    select 'run_updated_' || logged
$$;

CREATE FUNCTION public.skip_notification_of_inactive_membership() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
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

CREATE FUNCTION public.sync_run_copies() RETURNS void
    LANGUAGE plpgsql
    AS $$
declare
    logged record;
    copy text;
    meta int;
    change record;
    created boolean := false;
begin
    for logged in select c.oid, c.relname from run_logged_tables() t join pg_class c on c.oid = t loop
        foreach copy in array array[run_inserted_table(logged.relname), run_updated_table(logged.relname)] loop
            meta := run_copy_meta_columns(logged.relname, copy);
            if to_regclass(copy) is null then
                execute format('create table %I (change_run bigint not null, change_id bigint not null,
                                changed_at timestamptz not null%s)',
                               copy, case when meta = 4 then ', change_after boolean not null' else '' end);
                created := true;
            end if;
            for change in
                select attname, format_type(a.atttypid, a.atttypmod) as type,
                       a.attnum is null as gone, c.attnum is null as missing
                from (select attname, attnum, atttypid, atttypmod from pg_attribute
                      where attrelid = logged.oid and attnum > 0 and not attisdropped) a
                full join (select attname, attnum, atttypid, atttypmod from pg_attribute
                           where attrelid = copy::regclass and attnum > meta and not attisdropped) c using (attname)
                where a.attnum is null or c.attnum is null or (a.atttypid, a.atttypmod) <> (c.atttypid, c.atttypmod)
                order by a.attnum
            loop
                if change.gone then
                    execute format('alter table %I drop column %I', copy, change.attname);
                elsif change.missing then
                    execute format('alter table %I add column %I %s', copy, change.attname, change.type);
                else
                    execute format('alter table %I alter column %I type %s using %I::%s',
                                   copy, change.attname, change.type, change.attname, change.type);
                end if;
            end loop;
        end loop;
    end loop;
    if created then
        perform create_run_changes_view();
    end if;
end $$;

CREATE FUNCTION public.term_breaks_are_valid(breaks jsonb, term_starts_on date, term_ends_on date) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
    select jsonb_typeof(breaks) = 'array' and not exists (
        select 1 from jsonb_array_elements(breaks) b
        where case when jsonb_typeof(b) = 'object' and coalesce(b->>'name', '') <> ''
                        and b->>'starts_on' ~ '^\d{4}-\d{2}-\d{2}$' and b->>'ends_on' ~ '^\d{4}-\d{2}-\d{2}$'
                   then (b->>'starts_on')::date > (b->>'ends_on')::date
                        or (b->>'starts_on')::date < term_starts_on or (b->>'ends_on')::date > term_ends_on
                   else true end)
$_$;

CREATE FUNCTION public.touch_updated_at() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    if current_setting('crubatch.undoing', true) is distinct from 'on' then
        new.updated_at := now();
    end if;
    return new;
end $$;

CREATE FUNCTION public.within_one_edit(a text, b text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select public.levenshtein(a, b) <= 1 or (length(a) = length(b) and public.levenshtein(a, b) = 2 and exists (
        select 1 from generate_series(1, length(a) - 1) i
        where b = left(a, i - 1) || substr(a, i + 1, 1) || substr(a, i, 1) || substr(a, i + 2)))
$$;

CREATE FUNCTION public.without_generation(tokens text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    select case when cardinality(tokens) > 1 and tokens[cardinality(tokens)] in ('jr', 'sr', 'ii', 'iii', 'iv')
                then tokens[1:cardinality(tokens) - 1] else tokens end
$$;

CREATE TABLE public.attendance (
    id bigint NOT NULL,
    event_id bigint NOT NULL,
    person_id bigint NOT NULL,
    checked_in_at timestamp with time zone,
    archived_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.attendance ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.attendance_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.campuses (
    id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    city text,
    state text,
    country text DEFAULT 'US'::text NOT NULL,
    timezone text DEFAULT 'America/Los_Angeles'::text NOT NULL,
    url text,
    calendar_url text,
    map_url text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT campuses_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT campuses_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT campuses_name_check CHECK ((name <> ''::text))
);

ALTER TABLE public.campuses ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.campuses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.community_groups (
    id bigint NOT NULL,
    code text NOT NULL,
    ministry_id bigint NOT NULL,
    name text NOT NULL,
    meeting_day text,
    meeting_time time without time zone,
    location text,
    audience text,
    sex text,
    capacity integer,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    first_meeting date,
    last_meeting date,
    CONSTRAINT community_groups_audience_check CHECK ((audience = ANY (ARRAY['freshmen'::text, 'sophomores'::text, 'juniors'::text, 'seniors'::text, 'graduates'::text, 'faculty'::text, 'mixed'::text]))),
    CONSTRAINT community_groups_capacity_check CHECK ((capacity > 0)),
    CONSTRAINT community_groups_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT community_groups_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT community_groups_meeting_dates CHECK ((last_meeting >= first_meeting)),
    CONSTRAINT community_groups_meeting_day_check CHECK ((meeting_day = ANY (ARRAY['Monday'::text, 'Tuesday'::text, 'Wednesday'::text, 'Thursday'::text, 'Friday'::text, 'Saturday'::text, 'Sunday'::text]))),
    CONSTRAINT community_groups_name_check CHECK ((name <> ''::text)),
    CONSTRAINT community_groups_sex_check CHECK ((sex = ANY (ARRAY['men'::text, 'women'::text, 'mixed'::text])))
);

ALTER TABLE public.community_groups ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.community_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.event_ministries (
    event_id bigint NOT NULL,
    ministry_id bigint NOT NULL,
    "position" smallint DEFAULT 0 NOT NULL
);

CREATE TABLE public.events (
    id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone,
    timezone text DEFAULT 'America/Los_Angeles'::text NOT NULL,
    location text,
    rideshare text DEFAULT 'no'::text NOT NULL,
    url text,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    all_day boolean DEFAULT false NOT NULL,
    recurrence text,
    exceptions timestamp with time zone[],
    uid text,
    CONSTRAINT events_check CHECK ((ends_at >= starts_at)),
    CONSTRAINT events_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT events_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT events_name_check CHECK ((name <> ''::text)),
    CONSTRAINT events_recurrence_check CHECK ((recurrence <> ''::text)),
    CONSTRAINT events_rideshare CHECK ((rideshare = ANY (ARRAY['no'::text, 'to'::text, 'from'::text, 'both'::text]))),
    CONSTRAINT events_uid_check CHECK ((uid <> ''::text))
);

ALTER TABLE public.events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.given_name_variants (
    variant text NOT NULL,
    given_name text NOT NULL,
    CONSTRAINT given_name_variants_given_name_check CHECK (((given_name = public.person_name_key(given_name)) AND (given_name <> ''::text))),
    CONSTRAINT given_name_variants_variant_check CHECK (((variant = public.person_name_key(variant)) AND (variant <> ''::text)))
);

CREATE TABLE public.group_leaders (
    group_id bigint NOT NULL,
    person_id bigint NOT NULL,
    "position" smallint DEFAULT 0 NOT NULL
);

CREATE TABLE public.import_runs (
    id bigint NOT NULL,
    kind text NOT NULL,
    file_name text NOT NULL,
    sha256 text,
    status text DEFAULT 'running'::text NOT NULL,
    dry_run boolean DEFAULT false NOT NULL,
    os_user text,
    rows_read integer DEFAULT 0 NOT NULL,
    rows_inserted integer DEFAULT 0 NOT NULL,
    rows_updated integer DEFAULT 0 NOT NULL,
    rows_unchanged integer DEFAULT 0 NOT NULL,
    rows_rejected integer DEFAULT 0 NOT NULL,
    error text,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    rows_restored integer DEFAULT 0 NOT NULL,
    rows_archived integer DEFAULT 0 NOT NULL,
    undone_at timestamp with time zone,
    CONSTRAINT import_runs_status_check CHECK ((status = ANY (ARRAY['running'::text, 'succeeded'::text, 'rejected'::text, 'failed'::text, 'undone'::text])))
);

ALTER TABLE public.import_runs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.import_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.legacy_ids (
    collection text NOT NULL,
    object_id text NOT NULL,
    kind text NOT NULL,
    key text NOT NULL,
    migrated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT legacy_ids_key_check CHECK ((key <> ''::text)),
    CONSTRAINT legacy_ids_object_id_check CHECK ((object_id <> ''::text))
);

CREATE TABLE public.memberships (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    person_id bigint NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    joined_at timestamp with time zone DEFAULT now() NOT NULL,
    source text DEFAULT 'app'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ended_at timestamp with time zone,
    CONSTRAINT memberships_ended_when_left CHECK (((status = 'left'::text) = (ended_at IS NOT NULL))),
    CONSTRAINT memberships_source_check CHECK ((source <> ''::text)),
    CONSTRAINT memberships_status_check CHECK ((status = ANY (ARRAY['active'::text, 'pending'::text, 'left'::text])))
);

ALTER TABLE public.memberships ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.memberships_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ministries (
    id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    campus_id bigint NOT NULL,
    description text,
    url text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    contact_email text,
    CONSTRAINT ministries_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT ministries_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT ministries_contact_email_check CHECK (((contact_email <> ''::text) AND (contact_email = lower(contact_email)))),
    CONSTRAINT ministries_name_check CHECK ((name <> ''::text))
);

ALTER TABLE public.ministries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ministries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ministry_teams (
    id bigint NOT NULL,
    code text NOT NULL,
    ministry_id bigint NOT NULL,
    name text NOT NULL,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT ministry_teams_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT ministry_teams_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT ministry_teams_name_check CHECK ((name <> ''::text))
);

ALTER TABLE public.ministry_teams ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ministry_teams_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.nightly_folders (
    out_dir text NOT NULL,
    last_written_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT nightly_folders_out_dir_check CHECK ((out_dir ~~ '/%'::text))
);

CREATE TABLE public.notification_kinds (
    kind text NOT NULL,
    description text NOT NULL,
    CONSTRAINT notification_kinds_description_check CHECK ((description <> ''::text)),
    CONSTRAINT notification_kinds_kind_check CHECK ((kind ~ '^[a-z]+(-[a-z]+)*$'::text))
);

CREATE TABLE public.notifications (
    id bigint NOT NULL,
    kind text NOT NULL,
    membership_id bigint,
    recipient_id bigint,
    dedupe_key text NOT NULL COLLATE pg_catalog."C",
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    last_error text,
    sent_at timestamp with time zone,
    message_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ride_pairing_id bigint,
    attendance_id bigint,
    ministry_id bigint,
    CONSTRAINT notifications_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT notifications_one_recipient CHECK (((recipient_id IS NULL) <> (ministry_id IS NULL))),
    CONSTRAINT notifications_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text, 'dead'::text, 'skipped'::text, 'cancelled'::text, 'suppressed'::text])))
);

ALTER TABLE public.notifications ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.notifications_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.people (
    id bigint NOT NULL,
    email text NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    phone text,
    sex text,
    school_year smallint,
    grad_year smallint,
    campus_id bigint,
    is_leader boolean DEFAULT false NOT NULL,
    is_staff boolean DEFAULT false NOT NULL,
    staff_role text,
    notifications_opt_out boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    forgotten_at timestamp with time zone,
    is_member boolean DEFAULT true NOT NULL,
    origin text,
    CONSTRAINT people_check CHECK (((NOT is_leader) OR (phone IS NOT NULL))),
    CONSTRAINT people_email_check CHECK (((email <> ''::text) AND (email = lower(email)))),
    CONSTRAINT people_first_name_check CHECK ((first_name <> ''::text)),
    CONSTRAINT people_grad_year_check CHECK (((grad_year >= 1950) AND (grad_year <= 2100))),
    CONSTRAINT people_last_name_check CHECK ((last_name <> ''::text)),
    CONSTRAINT people_leaders_are_members CHECK ((is_member OR (NOT is_leader))),
    CONSTRAINT people_origin_check CHECK ((origin = 'check-in'::text)),
    CONSTRAINT people_phone_check CHECK (((phone ~ '^\+[1-9][0-9]*(;ext=[0-9]+)?$'::text) AND ((length(split_part(phone, ';'::text, 1)) >= 8) AND (length(split_part(phone, ';'::text, 1)) <= 16)))),
    CONSTRAINT people_school_year_check CHECK (((school_year >= 1) AND (school_year <= 5))),
    CONSTRAINT people_sex_check CHECK ((sex = ANY (ARRAY['male'::text, 'female'::text, 'unknown'::text, 'not-applicable'::text]))),
    CONSTRAINT people_staff_role_check CHECK ((staff_role = ANY (ARRAY['staff'::text, 'intern'::text, 'student'::text])))
)
WITH (fillfactor='90');

ALTER TABLE public.people ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.people_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.people_not_duplicates (
    a_id bigint NOT NULL,
    b_id bigint NOT NULL,
    decided_by text NOT NULL,
    decided_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT people_not_duplicates_check CHECK ((a_id < b_id))
);

CREATE TABLE public.person_aliases (
    id bigint NOT NULL,
    person_id bigint NOT NULL,
    email text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT person_aliases_email_check CHECK (((email <> ''::text) AND (email = lower(email))))
);

ALTER TABLE public.person_aliases ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.person_aliases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.person_ministries (
    person_id bigint NOT NULL,
    ministry_id bigint NOT NULL,
    "position" smallint DEFAULT 0 NOT NULL
);

CREATE TABLE public.resource_topics (
    resource_id bigint NOT NULL,
    topic text NOT NULL,
    "position" smallint DEFAULT 0 NOT NULL,
    CONSTRAINT resource_topics_topic_check CHECK ((topic <> ''::text))
);

CREATE TABLE public.resources (
    id bigint NOT NULL,
    url text NOT NULL,
    title text NOT NULL,
    type text,
    author text,
    published_on date,
    leaders_only boolean DEFAULT false NOT NULL,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT resources_title_check CHECK ((title <> ''::text)),
    CONSTRAINT resources_type_check CHECK ((type = ANY (ARRAY['article'::text, 'video'::text, 'audio'::text, 'guide'::text]))),
    CONSTRAINT resources_url_check CHECK ((url <> ''::text))
);

ALTER TABLE public.resources ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ride_offers (
    id bigint NOT NULL,
    event_id bigint NOT NULL,
    driver_id bigint NOT NULL,
    direction text NOT NULL,
    seats smallint NOT NULL,
    departs_to timestamp with time zone,
    departs_from timestamp with time zone,
    pickup_location text NOT NULL,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    status text DEFAULT 'open'::text NOT NULL,
    ended_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ride_offers_check CHECK (((latitude IS NULL) = (longitude IS NULL))),
    CONSTRAINT ride_offers_check1 CHECK (((direction = 'from'::text) OR (departs_to IS NOT NULL))),
    CONSTRAINT ride_offers_check2 CHECK (((direction = 'to'::text) OR (departs_from IS NOT NULL))),
    CONSTRAINT ride_offers_check3 CHECK (((status = 'cancelled'::text) = (ended_at IS NOT NULL))),
    CONSTRAINT ride_offers_direction_check CHECK ((direction = ANY (ARRAY['to'::text, 'from'::text, 'both'::text]))),
    CONSTRAINT ride_offers_latitude_check CHECK (((latitude >= ('-90'::integer)::numeric) AND (latitude <= (90)::numeric))),
    CONSTRAINT ride_offers_longitude_check CHECK (((longitude >= ('-180'::integer)::numeric) AND (longitude <= (180)::numeric))),
    CONSTRAINT ride_offers_pickup_location_check CHECK ((pickup_location <> ''::text)),
    CONSTRAINT ride_offers_postal_code_check CHECK ((postal_code <> ''::text)),
    CONSTRAINT ride_offers_seats_check CHECK (((seats >= 1) AND (seats <= 8))),
    CONSTRAINT ride_offers_status_check CHECK ((status = ANY (ARRAY['open'::text, 'cancelled'::text])))
);

ALTER TABLE public.ride_offers ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ride_offers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ride_pairings (
    id bigint NOT NULL,
    offer_id bigint NOT NULL,
    request_id bigint NOT NULL,
    leg text NOT NULL,
    ended_at timestamp with time zone,
    end_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ride_pairings_check CHECK (((ended_at IS NULL) = (end_reason IS NULL))),
    CONSTRAINT ride_pairings_end_reason_check CHECK ((end_reason <> ''::text)),
    CONSTRAINT ride_pairings_leg_check CHECK ((leg = ANY (ARRAY['to'::text, 'from'::text])))
);

ALTER TABLE public.ride_pairings ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ride_pairings_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ride_requests (
    id bigint NOT NULL,
    event_id bigint NOT NULL,
    passenger_id bigint NOT NULL,
    direction text NOT NULL,
    pickup_location text NOT NULL,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    earliest_departure timestamp with time zone,
    latest_departure timestamp with time zone,
    status text DEFAULT 'pending'::text NOT NULL,
    ended_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT ride_requests_check CHECK ((latest_departure >= earliest_departure)),
    CONSTRAINT ride_requests_check1 CHECK (((latitude IS NULL) = (longitude IS NULL))),
    CONSTRAINT ride_requests_check2 CHECK (((status = 'cancelled'::text) = (ended_at IS NOT NULL))),
    CONSTRAINT ride_requests_direction_check CHECK ((direction = ANY (ARRAY['to'::text, 'from'::text, 'both'::text]))),
    CONSTRAINT ride_requests_latitude_check CHECK (((latitude >= ('-90'::integer)::numeric) AND (latitude <= (90)::numeric))),
    CONSTRAINT ride_requests_longitude_check CHECK (((longitude >= ('-180'::integer)::numeric) AND (longitude <= (180)::numeric))),
    CONSTRAINT ride_requests_pickup_location_check CHECK ((pickup_location <> ''::text)),
    CONSTRAINT ride_requests_postal_code_check CHECK ((postal_code <> ''::text)),
    CONSTRAINT ride_requests_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'cancelled'::text])))
);

ALTER TABLE public.ride_requests ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ride_requests_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.run_images (
    id bigint NOT NULL,
    run_id bigint NOT NULL,
    table_name text NOT NULL,
    row_id bigint,
    operation text NOT NULL,
    before jsonb,
    after jsonb,
    changed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT run_images_operation_check CHECK ((operation = ANY (ARRAY['insert'::text, 'update'::text, 'delete'::text, 'archive'::text, 'end'::text, 'restore'::text, 'forget'::text])))
);

CREATE TABLE public.run_inserted_attendance (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    event_id bigint,
    person_id bigint,
    checked_in_at timestamp with time zone,
    archived_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_inserted_campuses (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    name text,
    city text,
    state text,
    country text,
    timezone text,
    url text,
    calendar_url text,
    map_url text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_inserted_community_groups (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    ministry_id bigint,
    name text,
    meeting_day text,
    meeting_time time without time zone,
    location text,
    audience text,
    sex text,
    capacity integer,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    first_meeting date,
    last_meeting date
);

CREATE TABLE public.run_inserted_event_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    event_id bigint,
    ministry_id bigint,
    "position" smallint
);

CREATE TABLE public.run_inserted_events (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    name text,
    starts_at timestamp with time zone,
    ends_at timestamp with time zone,
    timezone text,
    location text,
    rideshare text,
    url text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    all_day boolean,
    recurrence text,
    exceptions timestamp with time zone[],
    uid text
);

CREATE TABLE public.run_inserted_group_leaders (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    group_id bigint,
    person_id bigint,
    "position" smallint
);

CREATE TABLE public.run_inserted_memberships (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    group_id bigint,
    person_id bigint,
    status text,
    joined_at timestamp with time zone,
    source text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    ended_at timestamp with time zone
);

CREATE TABLE public.run_inserted_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    name text,
    campus_id bigint,
    description text,
    url text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    contact_email text
);

CREATE TABLE public.run_inserted_ministry_teams (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    ministry_id bigint,
    name text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_inserted_people (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    email text,
    first_name text,
    last_name text,
    phone text,
    sex text,
    school_year smallint,
    grad_year smallint,
    campus_id bigint,
    is_leader boolean,
    is_staff boolean,
    staff_role text,
    notifications_opt_out boolean,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    forgotten_at timestamp with time zone,
    is_member boolean,
    origin text
);

CREATE TABLE public.run_inserted_person_aliases (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    person_id bigint,
    email text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_inserted_person_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    person_id bigint,
    ministry_id bigint,
    "position" smallint
);

CREATE TABLE public.run_inserted_resource_topics (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    resource_id bigint,
    topic text,
    "position" smallint
);

CREATE TABLE public.run_inserted_resources (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    url text,
    title text,
    type text,
    author text,
    published_on date,
    leaders_only boolean,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_inserted_ride_offers (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    event_id bigint,
    driver_id bigint,
    direction text,
    seats smallint,
    departs_to timestamp with time zone,
    departs_from timestamp with time zone,
    pickup_location text,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    status text,
    ended_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_inserted_ride_pairings (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    offer_id bigint,
    request_id bigint,
    leg text,
    ended_at timestamp with time zone,
    end_reason text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_inserted_ride_requests (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    event_id bigint,
    passenger_id bigint,
    direction text,
    pickup_location text,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    earliest_departure timestamp with time zone,
    latest_departure timestamp with time zone,
    status text,
    ended_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_inserted_summer_missions (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    code text,
    name text,
    starts_on date,
    ends_on date,
    location text,
    cost numeric(10,2),
    leaders text,
    url text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_inserted_team_leaders (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    team_id bigint,
    person_id bigint,
    "position" smallint
);

CREATE TABLE public.run_inserted_terms (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    id bigint,
    campus_id bigint,
    code text,
    name text,
    starts_on date,
    ends_on date,
    breaks jsonb,
    archived_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_attendance (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    event_id bigint,
    person_id bigint,
    checked_in_at timestamp with time zone,
    archived_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_campuses (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    name text,
    city text,
    state text,
    country text,
    timezone text,
    url text,
    calendar_url text,
    map_url text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_updated_community_groups (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    ministry_id bigint,
    name text,
    meeting_day text,
    meeting_time time without time zone,
    location text,
    audience text,
    sex text,
    capacity integer,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    first_meeting date,
    last_meeting date
);

CREATE TABLE public.run_updated_event_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    event_id bigint,
    ministry_id bigint,
    "position" smallint
);

CREATE TABLE public.run_updated_events (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    name text,
    starts_at timestamp with time zone,
    ends_at timestamp with time zone,
    timezone text,
    location text,
    rideshare text,
    url text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    all_day boolean,
    recurrence text,
    exceptions timestamp with time zone[],
    uid text
);

CREATE TABLE public.run_updated_group_leaders (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    group_id bigint,
    person_id bigint,
    "position" smallint
);

CREATE TABLE public.run_updated_memberships (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    group_id bigint,
    person_id bigint,
    status text,
    joined_at timestamp with time zone,
    source text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    ended_at timestamp with time zone
);

CREATE TABLE public.run_updated_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    name text,
    campus_id bigint,
    description text,
    url text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone,
    contact_email text
);

CREATE TABLE public.run_updated_ministry_teams (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    ministry_id bigint,
    name text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_updated_people (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    email text,
    first_name text,
    last_name text,
    phone text,
    sex text,
    school_year smallint,
    grad_year smallint,
    campus_id bigint,
    is_leader boolean,
    is_staff boolean,
    staff_role text,
    notifications_opt_out boolean,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    forgotten_at timestamp with time zone,
    is_member boolean,
    origin text
);

CREATE TABLE public.run_updated_person_aliases (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    person_id bigint,
    email text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_person_ministries (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    person_id bigint,
    ministry_id bigint,
    "position" smallint
);

CREATE TABLE public.run_updated_resource_topics (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    resource_id bigint,
    topic text,
    "position" smallint
);

CREATE TABLE public.run_updated_resources (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    url text,
    title text,
    type text,
    author text,
    published_on date,
    leaders_only boolean,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_updated_ride_offers (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    event_id bigint,
    driver_id bigint,
    direction text,
    seats smallint,
    departs_to timestamp with time zone,
    departs_from timestamp with time zone,
    pickup_location text,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    status text,
    ended_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_ride_pairings (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    offer_id bigint,
    request_id bigint,
    leg text,
    ended_at timestamp with time zone,
    end_reason text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_ride_requests (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    event_id bigint,
    passenger_id bigint,
    direction text,
    pickup_location text,
    latitude numeric(8,6),
    longitude numeric(9,6),
    postal_code text,
    earliest_departure timestamp with time zone,
    latest_departure timestamp with time zone,
    status text,
    ended_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE TABLE public.run_updated_summer_missions (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    code text,
    name text,
    starts_on date,
    ends_on date,
    location text,
    cost numeric(10,2),
    leaders text,
    url text,
    description text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    archived_at timestamp with time zone
);

CREATE TABLE public.run_updated_team_leaders (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    team_id bigint,
    person_id bigint,
    "position" smallint
);

CREATE TABLE public.run_updated_terms (
    change_run bigint NOT NULL,
    change_id bigint NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    change_after boolean NOT NULL,
    id bigint,
    campus_id bigint,
    code text,
    name text,
    starts_on date,
    ends_on date,
    breaks jsonb,
    archived_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);

CREATE VIEW public.run_changes AS
 SELECT run_images.id,
    run_images.run_id,
    run_images.table_name,
    run_images.row_id,
    run_images.operation,
    run_images.before,
    run_images.after,
    run_images.changed_at
   FROM public.run_images
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'attendance'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_attendance i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'attendance'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_attendance u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_attendance u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'campuses'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_campuses i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'campuses'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_campuses u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_campuses u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'community_groups'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_community_groups i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'community_groups'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_community_groups u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_community_groups u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'event_ministries'::text AS table_name,
    NULL::bigint AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_event_ministries i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'event_ministries'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_event_ministries u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            NULL::bigint AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_event_ministries u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'events'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_events i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'events'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_events u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_events u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'group_leaders'::text AS table_name,
    NULL::bigint AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_group_leaders i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'group_leaders'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_group_leaders u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            NULL::bigint AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_group_leaders u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'memberships'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_memberships i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'memberships'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_memberships u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_memberships u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'ministries'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_ministries i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'ministries'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ministries u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ministries u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'ministry_teams'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_ministry_teams i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'ministry_teams'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ministry_teams u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ministry_teams u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'people'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_people i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'people'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_people u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_people u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'person_aliases'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_person_aliases i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'person_aliases'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_person_aliases u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_person_aliases u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'person_ministries'::text AS table_name,
    NULL::bigint AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_person_ministries i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'person_ministries'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_person_ministries u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            NULL::bigint AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_person_ministries u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'resource_topics'::text AS table_name,
    NULL::bigint AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_resource_topics i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'resource_topics'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_resource_topics u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            NULL::bigint AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_resource_topics u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'resources'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_resources i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'resources'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_resources u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_resources u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'ride_offers'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_ride_offers i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'ride_offers'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_offers u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_offers u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'ride_pairings'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_ride_pairings i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'ride_pairings'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_pairings u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_pairings u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'ride_requests'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_ride_requests i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'ride_requests'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_requests u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_ride_requests u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'summer_missions'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_summer_missions i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'summer_missions'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_summer_missions u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_summer_missions u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'team_leaders'::text AS table_name,
    NULL::bigint AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_team_leaders i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'team_leaders'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_team_leaders u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            NULL::bigint AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_team_leaders u
          WHERE u.change_after) a USING (change_run, change_id))
UNION ALL
 SELECT i.change_id AS id,
    i.change_run AS run_id,
    'terms'::text AS table_name,
    i.id AS row_id,
    'insert'::text AS operation,
    NULL::jsonb AS before,
    (to_jsonb(i.*) - '{change_run,change_id,changed_at}'::text[]) AS after,
    i.changed_at
   FROM public.run_inserted_terms i
UNION ALL
 SELECT b.change_id AS id,
    b.change_run AS run_id,
    'terms'::text AS table_name,
    a.row_id,
    public.run_change_operation(b.image, a.image) AS operation,
    b.image AS before,
    a.image AS after,
    b.changed_at
   FROM (( SELECT u.change_run,
            u.change_id,
            u.changed_at,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_terms u
          WHERE (NOT u.change_after)) b
     JOIN ( SELECT u.change_run,
            u.change_id,
            u.id AS row_id,
            (to_jsonb(u.*) - '{change_run,change_id,changed_at,change_after}'::text[]) AS image
           FROM public.run_updated_terms u
          WHERE u.change_after) a USING (change_run, change_id));

ALTER TABLE public.run_images ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.run_images_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.sources (
    id bigint NOT NULL,
    kind text NOT NULL,
    url text NOT NULL,
    etag text,
    last_modified text,
    sha256 text NOT NULL,
    run_id bigint,
    fetched_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    tables_state text,
    CONSTRAINT sources_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text))
);

ALTER TABLE public.sources ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.sources_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.staff_account_campuses (
    account_id bigint NOT NULL,
    campus_id bigint NOT NULL
);

CREATE TABLE public.staff_accounts (
    id bigint NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    password_hash text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT staff_accounts_email_check CHECK (((email = lower(email)) AND (email ~~ '%_@_%'::text))),
    CONSTRAINT staff_accounts_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'campus'::text, 'viewer'::text])))
);

ALTER TABLE public.staff_accounts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.staff_accounts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.staff_previews (
    id text NOT NULL,
    account_id bigint NOT NULL,
    kind text NOT NULL,
    file_name text NOT NULL,
    sha256 text NOT NULL,
    tables_state text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    applied_run_id bigint
);

CREATE TABLE public.staff_sessions (
    token_sha256 text NOT NULL,
    account_id bigint NOT NULL,
    csrf text NOT NULL,
    address text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.staff_sign_in_failures (
    email text NOT NULL,
    address text NOT NULL,
    failed_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.summer_missions (
    id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    starts_on date NOT NULL,
    ends_on date NOT NULL,
    location text NOT NULL,
    cost numeric(10,2),
    leaders text,
    url text,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT summer_missions_check CHECK ((ends_on >= starts_on)),
    CONSTRAINT summer_missions_code_check CHECK (((code <> ''::text) AND (code = lower(code)))),
    CONSTRAINT summer_missions_code_rule CHECK (public.is_valid_code(code)),
    CONSTRAINT summer_missions_cost_check CHECK ((cost >= (0)::numeric)),
    CONSTRAINT summer_missions_location_check CHECK ((location <> ''::text)),
    CONSTRAINT summer_missions_name_check CHECK ((name <> ''::text))
);

ALTER TABLE public.summer_missions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.summer_missions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.team_leaders (
    team_id bigint NOT NULL,
    person_id bigint NOT NULL,
    "position" smallint DEFAULT 0 NOT NULL
);

CREATE TABLE public.terms (
    id bigint NOT NULL,
    campus_id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    starts_on date NOT NULL,
    ends_on date NOT NULL,
    breaks jsonb DEFAULT '[]'::jsonb NOT NULL,
    archived_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT terms_check CHECK ((ends_on > starts_on)),
    CONSTRAINT terms_check1 CHECK (public.term_breaks_are_valid(breaks, starts_on, ends_on)),
    CONSTRAINT terms_code_check CHECK (public.is_valid_code(code)),
    CONSTRAINT terms_name_check CHECK ((name <> ''::text))
);

ALTER TABLE public.terms ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.terms_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_event_id_person_id_key UNIQUE (event_id, person_id);

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.campuses
    ADD CONSTRAINT campuses_code_key UNIQUE (code);

ALTER TABLE ONLY public.campuses
    ADD CONSTRAINT campuses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.community_groups
    ADD CONSTRAINT community_groups_code_key UNIQUE (code);

ALTER TABLE ONLY public.community_groups
    ADD CONSTRAINT community_groups_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.event_ministries
    ADD CONSTRAINT event_ministries_pkey PRIMARY KEY (event_id, ministry_id);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_code_key UNIQUE (code);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.given_name_variants
    ADD CONSTRAINT given_name_variants_pkey PRIMARY KEY (variant, given_name);

ALTER TABLE ONLY public.group_leaders
    ADD CONSTRAINT group_leaders_pkey PRIMARY KEY (group_id, person_id);

ALTER TABLE ONLY public.import_runs
    ADD CONSTRAINT import_runs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.legacy_ids
    ADD CONSTRAINT legacy_ids_pkey PRIMARY KEY (collection, object_id);

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_group_id_person_id_key UNIQUE (group_id, person_id);

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ministries
    ADD CONSTRAINT ministries_code_key UNIQUE (code);

ALTER TABLE ONLY public.ministries
    ADD CONSTRAINT ministries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ministry_teams
    ADD CONSTRAINT ministry_teams_code_key UNIQUE (code);

ALTER TABLE ONLY public.ministry_teams
    ADD CONSTRAINT ministry_teams_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.nightly_folders
    ADD CONSTRAINT nightly_folders_pkey PRIMARY KEY (out_dir);

ALTER TABLE ONLY public.notification_kinds
    ADD CONSTRAINT notification_kinds_pkey PRIMARY KEY (kind);

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_dedupe_key_key UNIQUE (dedupe_key);

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.people_not_duplicates
    ADD CONSTRAINT people_not_duplicates_pkey PRIMARY KEY (a_id, b_id);

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.person_aliases
    ADD CONSTRAINT person_aliases_email_key UNIQUE (email);

ALTER TABLE ONLY public.person_aliases
    ADD CONSTRAINT person_aliases_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.person_ministries
    ADD CONSTRAINT person_ministries_pkey PRIMARY KEY (person_id, ministry_id);

ALTER TABLE ONLY public.resource_topics
    ADD CONSTRAINT resource_topics_pkey PRIMARY KEY (resource_id, topic);

ALTER TABLE ONLY public.resources
    ADD CONSTRAINT resources_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.resources
    ADD CONSTRAINT resources_url_key UNIQUE (url);

ALTER TABLE ONLY public.ride_offers
    ADD CONSTRAINT ride_offers_event_id_driver_id_key UNIQUE (event_id, driver_id);

ALTER TABLE ONLY public.ride_offers
    ADD CONSTRAINT ride_offers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ride_pairings
    ADD CONSTRAINT ride_pairings_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ride_requests
    ADD CONSTRAINT ride_requests_event_id_passenger_id_key UNIQUE (event_id, passenger_id);

ALTER TABLE ONLY public.ride_requests
    ADD CONSTRAINT ride_requests_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.run_images
    ADD CONSTRAINT run_images_pkey PRIMARY KEY (run_id, id);

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT sources_kind_url_key UNIQUE (kind, url);

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT sources_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.staff_account_campuses
    ADD CONSTRAINT staff_account_campuses_pkey PRIMARY KEY (account_id, campus_id);

ALTER TABLE ONLY public.staff_accounts
    ADD CONSTRAINT staff_accounts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.staff_previews
    ADD CONSTRAINT staff_previews_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.staff_sessions
    ADD CONSTRAINT staff_sessions_pkey PRIMARY KEY (token_sha256);

ALTER TABLE ONLY public.summer_missions
    ADD CONSTRAINT summer_missions_code_key UNIQUE (code);

ALTER TABLE ONLY public.summer_missions
    ADD CONSTRAINT summer_missions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.team_leaders
    ADD CONSTRAINT team_leaders_pkey PRIMARY KEY (team_id, person_id);

ALTER TABLE ONLY public.terms
    ADD CONSTRAINT terms_campus_id_code_key UNIQUE (campus_id, code);

ALTER TABLE ONLY public.terms
    ADD CONSTRAINT terms_pkey PRIMARY KEY (id);

CREATE INDEX attendance_person_id ON public.attendance USING btree (person_id);

CREATE INDEX community_groups_ministry_id ON public.community_groups USING btree (ministry_id);

CREATE UNIQUE INDEX events_uid ON public.events USING btree (uid);

CREATE INDEX group_leaders_person_id ON public.group_leaders USING btree (person_id);

CREATE INDEX legacy_ids_kind_key ON public.legacy_ids USING btree (kind, key);

CREATE INDEX memberships_person_id ON public.memberships USING btree (person_id);

CREATE INDEX ministries_campus_id ON public.ministries USING btree (campus_id);

CREATE INDEX ministry_teams_ministry_id ON public.ministry_teams USING btree (ministry_id);

CREATE INDEX notifications_attendance_id ON public.notifications USING btree (attendance_id) WHERE (attendance_id IS NOT NULL);

CREATE INDEX notifications_membership_id ON public.notifications USING btree (membership_id) WHERE (membership_id IS NOT NULL);

CREATE INDEX notifications_pending_id ON public.notifications USING btree (id) WHERE (status = 'pending'::text);

CREATE INDEX notifications_ride_pairing_id ON public.notifications USING btree (ride_pairing_id);

CREATE INDEX people_campus_id ON public.people USING btree (campus_id);

CREATE UNIQUE INDEX people_email ON public.people USING btree (lower(email));

CREATE INDEX person_aliases_person_id ON public.person_aliases USING btree (person_id);

CREATE INDEX person_ministries_ministry_id ON public.person_ministries USING btree (ministry_id);

CREATE INDEX ride_offers_driver_id ON public.ride_offers USING btree (driver_id);

CREATE UNIQUE INDEX ride_pairings_active_leg ON public.ride_pairings USING btree (request_id, leg) WHERE (ended_at IS NULL);

CREATE INDEX ride_pairings_active_offer ON public.ride_pairings USING btree (offer_id, leg) WHERE (ended_at IS NULL);

CREATE INDEX ride_requests_passenger_id ON public.ride_requests USING btree (passenger_id);

CREATE UNIQUE INDEX staff_accounts_email ON public.staff_accounts USING btree (email);

CREATE INDEX staff_sessions_account ON public.staff_sessions USING btree (account_id);

CREATE INDEX staff_sign_in_failures_address ON public.staff_sign_in_failures USING btree (address, failed_at);

CREATE INDEX staff_sign_in_failures_email ON public.staff_sign_in_failures USING btree (email, failed_at);

CREATE TRIGGER attendance_queue_newcomers AFTER INSERT ON public.attendance REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.queue_newcomer_notifications();

CREATE TRIGGER attendance_record_run_delete AFTER DELETE ON public.attendance REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER attendance_record_run_insert AFTER INSERT ON public.attendance REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER attendance_record_run_update AFTER UPDATE ON public.attendance REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER attendance_touch_updated_at BEFORE UPDATE ON public.attendance FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER campuses_record_run_delete AFTER DELETE ON public.campuses REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER campuses_record_run_insert AFTER INSERT ON public.campuses REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER campuses_record_run_update AFTER UPDATE ON public.campuses REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER campuses_touch_updated_at BEFORE UPDATE ON public.campuses FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER community_groups_record_run_delete AFTER DELETE ON public.community_groups REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER community_groups_record_run_insert AFTER INSERT ON public.community_groups REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER community_groups_record_run_update AFTER UPDATE ON public.community_groups REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER community_groups_touch_updated_at BEFORE UPDATE ON public.community_groups FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER event_ministries_record_run_delete AFTER DELETE ON public.event_ministries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER event_ministries_record_run_insert AFTER INSERT ON public.event_ministries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER event_ministries_record_run_update AFTER UPDATE ON public.event_ministries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER events_record_run_delete AFTER DELETE ON public.events REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER events_record_run_insert AFTER INSERT ON public.events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER events_record_run_update AFTER UPDATE ON public.events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER events_touch_updated_at BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER group_leaders_record_run_delete AFTER DELETE ON public.group_leaders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER group_leaders_record_run_insert AFTER INSERT ON public.group_leaders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER group_leaders_record_run_update AFTER UPDATE ON public.group_leaders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER import_runs_touch_updated_at BEFORE UPDATE ON public.import_runs FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER memberships_cancel_newcomers AFTER INSERT ON public.memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.cancel_newcomers_who_joined();

CREATE TRIGGER memberships_cancel_notifications BEFORE DELETE ON public.memberships FOR EACH ROW EXECUTE FUNCTION public.cancel_member_joined();

CREATE TRIGGER memberships_enforce_capacity_on_insert AFTER INSERT ON public.memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.enforce_group_capacity();

CREATE TRIGGER memberships_enforce_capacity_on_update AFTER UPDATE ON public.memberships REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.enforce_group_capacity();

CREATE TRIGGER memberships_notify_status AFTER UPDATE OF status ON public.memberships FOR EACH ROW WHEN (((new.status = 'left'::text) <> (old.status = 'left'::text))) EXECUTE FUNCTION public.notify_membership_status();

CREATE TRIGGER memberships_queue_notifications AFTER INSERT ON public.memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.queue_join_notifications();

CREATE TRIGGER memberships_record_run_delete AFTER DELETE ON public.memberships REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER memberships_record_run_insert AFTER INSERT ON public.memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER memberships_record_run_update AFTER UPDATE ON public.memberships REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER memberships_set_ended_at BEFORE INSERT OR UPDATE OF status, ended_at ON public.memberships FOR EACH ROW EXECUTE FUNCTION public.membership_set_ended_at();

CREATE TRIGGER memberships_touch_updated_at BEFORE UPDATE ON public.memberships FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER ministries_record_run_delete AFTER DELETE ON public.ministries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER ministries_record_run_insert AFTER INSERT ON public.ministries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER ministries_record_run_update AFTER UPDATE ON public.ministries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER ministries_touch_updated_at BEFORE UPDATE ON public.ministries FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER ministry_teams_record_run_delete AFTER DELETE ON public.ministry_teams REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER ministry_teams_record_run_insert AFTER INSERT ON public.ministry_teams REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER ministry_teams_record_run_update AFTER UPDATE ON public.ministry_teams REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER ministry_teams_touch_updated_at BEFORE UPDATE ON public.ministry_teams FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER notifications_attendance_id_on_delete AFTER DELETE ON public.attendance REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'attendance_id', 'id', 'set null');

CREATE TRIGGER notifications_attendance_id_on_key_update AFTER UPDATE OF id ON public.attendance FOR EACH ROW WHEN ((new.id IS DISTINCT FROM old.id)) EXECUTE FUNCTION public.apply_references('notifications', 'attendance_id', 'id', 'set null');

CREATE TRIGGER notifications_check_references_on_insert AFTER INSERT ON public.notifications REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.check_references('kind', 'notification_kinds', 'kind', 'membership_id', 'memberships', 'id', 'recipient_id', 'people', 'id', 'ride_pairing_id', 'ride_pairings', 'id', 'attendance_id', 'attendance', 'id', 'ministry_id', 'ministries', 'id');

CREATE TRIGGER notifications_check_references_on_update AFTER UPDATE ON public.notifications FOR EACH ROW WHEN ((((new.kind IS DISTINCT FROM old.kind) AND (new.kind IS NOT NULL)) OR ((new.membership_id IS DISTINCT FROM old.membership_id) AND (new.membership_id IS NOT NULL)) OR ((new.recipient_id IS DISTINCT FROM old.recipient_id) AND (new.recipient_id IS NOT NULL)) OR ((new.ride_pairing_id IS DISTINCT FROM old.ride_pairing_id) AND (new.ride_pairing_id IS NOT NULL)) OR ((new.attendance_id IS DISTINCT FROM old.attendance_id) AND (new.attendance_id IS NOT NULL)) OR ((new.ministry_id IS DISTINCT FROM old.ministry_id) AND (new.ministry_id IS NOT NULL)))) EXECUTE FUNCTION public.check_references('kind', 'notification_kinds', 'kind', 'membership_id', 'memberships', 'id', 'recipient_id', 'people', 'id', 'ride_pairing_id', 'ride_pairings', 'id', 'attendance_id', 'attendance', 'id', 'ministry_id', 'ministries', 'id');

CREATE TRIGGER notifications_kind_on_delete AFTER DELETE ON public.notification_kinds REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'kind', 'kind', 'no action');

CREATE TRIGGER notifications_kind_on_key_update AFTER UPDATE OF kind ON public.notification_kinds FOR EACH ROW WHEN ((new.kind IS DISTINCT FROM old.kind)) EXECUTE FUNCTION public.apply_references('notifications', 'kind', 'kind', 'no action');

CREATE TRIGGER notifications_membership_id_on_delete AFTER DELETE ON public.memberships REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'membership_id', 'id', 'set null');

CREATE TRIGGER notifications_membership_id_on_key_update AFTER UPDATE OF id ON public.memberships FOR EACH ROW WHEN ((new.id IS DISTINCT FROM old.id)) EXECUTE FUNCTION public.apply_references('notifications', 'membership_id', 'id', 'set null');

CREATE TRIGGER notifications_ministry_id_on_delete AFTER DELETE ON public.ministries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'ministry_id', 'id', 'cascade');

CREATE TRIGGER notifications_ministry_id_on_key_update AFTER UPDATE OF id ON public.ministries FOR EACH ROW WHEN ((new.id IS DISTINCT FROM old.id)) EXECUTE FUNCTION public.apply_references('notifications', 'ministry_id', 'id', 'cascade');

CREATE TRIGGER notifications_recipient_id_on_delete AFTER DELETE ON public.people REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'recipient_id', 'id', 'cascade');

CREATE TRIGGER notifications_recipient_id_on_key_update AFTER UPDATE OF id ON public.people FOR EACH ROW WHEN ((new.id IS DISTINCT FROM old.id)) EXECUTE FUNCTION public.apply_references('notifications', 'recipient_id', 'id', 'cascade');

CREATE TRIGGER notifications_ride_pairing_id_on_delete AFTER DELETE ON public.ride_pairings REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.apply_references('notifications', 'ride_pairing_id', 'id', 'set null');

CREATE TRIGGER notifications_ride_pairing_id_on_key_update AFTER UPDATE OF id ON public.ride_pairings FOR EACH ROW WHEN ((new.id IS DISTINCT FROM old.id)) EXECUTE FUNCTION public.apply_references('notifications', 'ride_pairing_id', 'id', 'set null');

CREATE TRIGGER notifications_skip_inactive_membership BEFORE INSERT ON public.notifications FOR EACH ROW WHEN (((new.membership_id IS NOT NULL) AND ((new.kind <> ALL (ARRAY['joined'::text, 'welcome'::text])) OR (pg_trigger_depth() = 0)))) EXECUTE FUNCTION public.skip_notification_of_inactive_membership();

CREATE TRIGGER notifications_touch_updated_at BEFORE UPDATE ON public.notifications FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER people_record_run_delete AFTER DELETE ON public.people REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER people_record_run_insert AFTER INSERT ON public.people REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER people_record_run_update AFTER UPDATE ON public.people REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER people_touch_updated_at BEFORE UPDATE ON public.people FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER person_aliases_record_run_delete AFTER DELETE ON public.person_aliases REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER person_aliases_record_run_insert AFTER INSERT ON public.person_aliases REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER person_aliases_record_run_update AFTER UPDATE ON public.person_aliases REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER person_aliases_touch_updated_at BEFORE UPDATE ON public.person_aliases FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER person_ministries_record_run_delete AFTER DELETE ON public.person_ministries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER person_ministries_record_run_insert AFTER INSERT ON public.person_ministries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER person_ministries_record_run_update AFTER UPDATE ON public.person_ministries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER resource_topics_record_run_delete AFTER DELETE ON public.resource_topics REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER resource_topics_record_run_insert AFTER INSERT ON public.resource_topics REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER resource_topics_record_run_update AFTER UPDATE ON public.resource_topics REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER resources_record_run_delete AFTER DELETE ON public.resources REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER resources_record_run_insert AFTER INSERT ON public.resources REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER resources_record_run_update AFTER UPDATE ON public.resources REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER resources_touch_updated_at BEFORE UPDATE ON public.resources FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER ride_offers_end_pairings AFTER UPDATE OF status, direction, seats ON public.ride_offers FOR EACH ROW WHEN ((((new.status = 'cancelled'::text) AND (old.status <> 'cancelled'::text)) OR (new.direction <> old.direction) OR (new.seats < old.seats))) EXECUTE FUNCTION public.end_ride_pairings_of_offer();

CREATE TRIGGER ride_offers_record_run_delete AFTER DELETE ON public.ride_offers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER ride_offers_record_run_insert AFTER INSERT ON public.ride_offers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER ride_offers_record_run_update AFTER UPDATE ON public.ride_offers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER ride_offers_set_ended_at BEFORE INSERT OR UPDATE OF status, ended_at ON public.ride_offers FOR EACH ROW EXECUTE FUNCTION public.ride_set_ended_at();

CREATE TRIGGER ride_offers_touch_updated_at BEFORE UPDATE ON public.ride_offers FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER ride_pairings_cancel_notifications BEFORE DELETE ON public.ride_pairings FOR EACH ROW EXECUTE FUNCTION public.cancel_notifications_of_deleted_pairing();

CREATE TRIGGER ride_pairings_check_on_insert AFTER INSERT ON public.ride_pairings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.check_ride_pairings();

CREATE TRIGGER ride_pairings_check_on_update AFTER UPDATE ON public.ride_pairings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.check_ride_pairings();

CREATE TRIGGER ride_pairings_queue_messages_on_insert AFTER INSERT ON public.ride_pairings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.queue_ride_messages();

CREATE TRIGGER ride_pairings_queue_messages_on_update AFTER UPDATE ON public.ride_pairings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.queue_ride_messages();

CREATE TRIGGER ride_pairings_record_run_delete AFTER DELETE ON public.ride_pairings REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER ride_pairings_record_run_insert AFTER INSERT ON public.ride_pairings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER ride_pairings_record_run_update AFTER UPDATE ON public.ride_pairings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER ride_pairings_touch_updated_at BEFORE UPDATE ON public.ride_pairings FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER ride_requests_end_pairings AFTER UPDATE OF status, direction ON public.ride_requests FOR EACH ROW WHEN ((((new.status = 'cancelled'::text) AND (old.status <> 'cancelled'::text)) OR (new.direction <> old.direction))) EXECUTE FUNCTION public.end_ride_pairings_of_request();

CREATE TRIGGER ride_requests_record_run_delete AFTER DELETE ON public.ride_requests REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER ride_requests_record_run_insert AFTER INSERT ON public.ride_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER ride_requests_record_run_update AFTER UPDATE ON public.ride_requests REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER ride_requests_set_ended_at BEFORE INSERT OR UPDATE OF status, ended_at ON public.ride_requests FOR EACH ROW EXECUTE FUNCTION public.ride_set_ended_at();

CREATE TRIGGER ride_requests_touch_updated_at BEFORE UPDATE ON public.ride_requests FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER summer_missions_record_run_delete AFTER DELETE ON public.summer_missions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER summer_missions_record_run_insert AFTER INSERT ON public.summer_missions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER summer_missions_record_run_update AFTER UPDATE ON public.summer_missions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER summer_missions_touch_updated_at BEFORE UPDATE ON public.summer_missions FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

CREATE TRIGGER team_leaders_record_run_delete AFTER DELETE ON public.team_leaders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER team_leaders_record_run_insert AFTER INSERT ON public.team_leaders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER team_leaders_record_run_update AFTER UPDATE ON public.team_leaders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER terms_record_run_delete AFTER DELETE ON public.terms REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_delete();

CREATE TRIGGER terms_record_run_insert AFTER INSERT ON public.terms REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_insert();

CREATE TRIGGER terms_record_run_update AFTER UPDATE ON public.terms REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.record_run_update();

CREATE TRIGGER terms_touch_updated_at BEFORE UPDATE ON public.terms FOR EACH ROW EXECUTE FUNCTION public.touch_updated_at();

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.attendance
    ADD CONSTRAINT attendance_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.community_groups
    ADD CONSTRAINT community_groups_ministry_id_fkey FOREIGN KEY (ministry_id) REFERENCES public.ministries(id) ON DELETE RESTRICT;

ALTER TABLE ONLY public.event_ministries
    ADD CONSTRAINT event_ministries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.event_ministries
    ADD CONSTRAINT event_ministries_ministry_id_fkey FOREIGN KEY (ministry_id) REFERENCES public.ministries(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.group_leaders
    ADD CONSTRAINT group_leaders_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.community_groups(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.group_leaders
    ADD CONSTRAINT group_leaders_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE RESTRICT;

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.community_groups(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ministries
    ADD CONSTRAINT ministries_campus_id_fkey FOREIGN KEY (campus_id) REFERENCES public.campuses(id) ON DELETE RESTRICT;

ALTER TABLE ONLY public.ministry_teams
    ADD CONSTRAINT ministry_teams_ministry_id_fkey FOREIGN KEY (ministry_id) REFERENCES public.ministries(id) ON DELETE RESTRICT;

ALTER TABLE ONLY public.people
    ADD CONSTRAINT people_campus_id_fkey FOREIGN KEY (campus_id) REFERENCES public.campuses(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.people_not_duplicates
    ADD CONSTRAINT people_not_duplicates_a_id_fkey FOREIGN KEY (a_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.people_not_duplicates
    ADD CONSTRAINT people_not_duplicates_b_id_fkey FOREIGN KEY (b_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.person_aliases
    ADD CONSTRAINT person_aliases_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.person_ministries
    ADD CONSTRAINT person_ministries_ministry_id_fkey FOREIGN KEY (ministry_id) REFERENCES public.ministries(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.person_ministries
    ADD CONSTRAINT person_ministries_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.resource_topics
    ADD CONSTRAINT resource_topics_resource_id_fkey FOREIGN KEY (resource_id) REFERENCES public.resources(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_offers
    ADD CONSTRAINT ride_offers_driver_id_fkey FOREIGN KEY (driver_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_offers
    ADD CONSTRAINT ride_offers_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_pairings
    ADD CONSTRAINT ride_pairings_offer_id_fkey FOREIGN KEY (offer_id) REFERENCES public.ride_offers(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_pairings
    ADD CONSTRAINT ride_pairings_request_id_fkey FOREIGN KEY (request_id) REFERENCES public.ride_requests(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_requests
    ADD CONSTRAINT ride_requests_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ride_requests
    ADD CONSTRAINT ride_requests_passenger_id_fkey FOREIGN KEY (passenger_id) REFERENCES public.people(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.sources
    ADD CONSTRAINT sources_run_id_fkey FOREIGN KEY (run_id) REFERENCES public.import_runs(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.staff_account_campuses
    ADD CONSTRAINT staff_account_campuses_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.staff_accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.staff_account_campuses
    ADD CONSTRAINT staff_account_campuses_campus_id_fkey FOREIGN KEY (campus_id) REFERENCES public.campuses(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.staff_previews
    ADD CONSTRAINT staff_previews_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.staff_accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.staff_previews
    ADD CONSTRAINT staff_previews_applied_run_id_fkey FOREIGN KEY (applied_run_id) REFERENCES public.import_runs(id);

ALTER TABLE ONLY public.staff_sessions
    ADD CONSTRAINT staff_sessions_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.staff_accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.team_leaders
    ADD CONSTRAINT team_leaders_person_id_fkey FOREIGN KEY (person_id) REFERENCES public.people(id) ON DELETE RESTRICT;

ALTER TABLE ONLY public.team_leaders
    ADD CONSTRAINT team_leaders_team_id_fkey FOREIGN KEY (team_id) REFERENCES public.ministry_teams(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.terms
    ADD CONSTRAINT terms_campus_id_fkey FOREIGN KEY (campus_id) REFERENCES public.campuses(id) ON DELETE CASCADE;
