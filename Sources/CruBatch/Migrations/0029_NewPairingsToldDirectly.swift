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
    static let newPairingsToldDirectly = Migration(version: 29, name: "new pairings told directly", sql: """
    \(queueRideMessagesFunction(queueingStarted: newPairingsTold))
    """)

    /// The messages of the pairings a statement started: those it inserted told directly, those
    /// made current again as before, then each car filled.
    private static let newPairingsTold = """
            if tg_op = 'INSERT' then
                -- New pairings: no message names them yet.
                \(ridePairedMessages)
                where p.ended_at is null;
                get diagnostics added = row_count;
                queued := queued + added;
            elsif started is not null then
                \(restartedPairingsTold)
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

        """
}
