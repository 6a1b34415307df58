import PostgresClient

/// `crubatch people merge KEEP DROP` (or `--from pairs.csv`): makes two records of one person one,
/// in one transaction recorded as a `people-merge` run, so `undo` puts both people back. DROP's
/// memberships (a group both are in keeps the earlier join), ministries, leading of groups and
/// teams, ride offers and requests, check-ins and notifications go to KEEP; KEEP's empty fields are
/// filled from DROP; DROP's email (and its aliases) become aliases of KEEP (`person_aliases`), so a
/// later import with that email updates KEEP; then DROP's row is deleted. Nothing is queued for
/// the moved memberships: they are moved, not joined, and the run tells the triggers not to notify;
/// a pending `newcomer` message about a check-in of either is cancelled when the merged person is
/// no newcomer to that ministry (a leader, a member of one of its groups, or there before).
public struct PeopleMerge {
    /// One pair to merge, by email.
    public struct Pair: Sendable, Equatable {
        public let keep: String
        public let drop: String
        /// Where a pairs file gives it (`pairs.csv:4`), which a refusal names.
        public let location: String?

        public init(keep: String, drop: String, location: String? = nil) {
            self.keep = keep.trimmingCharacters(in: .whitespaces).lowercased()
            self.drop = drop.trimmingCharacters(in: .whitespaces).lowercased()
            self.location = location
        }

        /// A refusal of this pair, after its place in the pairs file when it has one.
        func refusal(_ message: String) -> CruBatchError {
            .refused((location.map { "\($0): " } ?? "") + message + "; nothing was changed")
        }
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Merges every pair in one run named `file` (the pairs file, or `KEEP <- DROP`); a pair whose
    /// people are not both found, or who are one already, stops the run before anything is written.
    /// A dry run does it all and rolls it back: the report says what would move.
    public func merge(_ pairs: [Pair], file: String? = nil, dryRun: Bool = false) throws -> MergeReport {
        try Migrator(connection: connection).requireCurrent()
        guard !pairs.isEmpty else { throw CruBatchError.usage("no pair of people to merge") }
        let name = file ?? pairs.map { "\($0.keep) <- \($0.drop)" }.joined(separator: ", ")
        let run = WriterRun(
            connection: connection, kind: .peopleMerge, file: name, dryRun: dryRun,
            locks: .people)
        let (merged, ids) = try run.perform { scope in
            try JoinMessages(notify: false).apply(on: connection)
            try connection.execute("""
                create temp table merge_notifications (id bigint primary key, image jsonb not null) on commit drop
                """)
            return try pairs.map { try mergeOne($0, runID: scope.ids[0]) }
        }
        let moved = merged.reduce(0) { $0 + $1.memberships + $1.rides + $1.attendance }
        try run.log.finish(ids[0], status: .succeeded,
                           counts: RunLog.Counts(read: pairs.count, updated: merged.count + moved, archived: merged.count),
                           wrote: !dryRun)
        return MergeReport(runID: ids[0], merged: merged, dryRun: dryRun)
    }

    /// Merges one pair inside the run's transaction.
    private func mergeOne(_ pair: Pair, runID: Int) throws -> MergeReport.Merged {
        let (keepID, dropID) = try (person(pair.keep, role: "KEEP", of: pair), person(pair.drop, role: "DROP", of: pair))
        guard keepID != dropID else { throw pair.refusal("\(pair.keep) and \(pair.drop) are one person already") }
        let moves = PersonMoves(connection: connection, keep: keepID, drop: dropID)
        let broken = try moves.brokenRides()
        guard broken.isEmpty else {
            throw pair.refusal("""
                \(pair.drop) cannot be merged into \(pair.keep): it would break seated rides: \
                \(broken.joined(separator: "; ")); cancel one of them first (crubatch rides cancel --offer ID \
                or --request ID)
                """)
        }
        // An email given may be an alias (of someone merged before, in this run too): the report
        // names the people merged, as they are now.
        let (keep, drop, dropAliases) = try (email(of: keepID), email(of: dropID), aliases(of: dropID))
        var merged = MergeReport.Merged(keep: keep, drop: drop, askedKeep: pair.keep, askedDrop: pair.drop, dropAliases: dropAliases)
        let notifications = try logNotifications(of: dropID, keep: keepID, runID: runID) {
            // The outbox rows first: the moves below delete rows they name.
            try moves.repointNotifications()
            merged.memberships = try moves.memberships()
            merged.ministries = try moves.ministries()
            merged.leading = try moves.leading()
            merged.rides = try moves.rides()
            merged.attendance = try moves.attendance()
            merged.filled = try moves.fillEmptyFields()
            try moves.keepAliases()
            merged.newcomerMessagesCancelled = try moves.cancelNewcomerMessages()
        }
        merged.notifications = notifications
        try connection.query("delete from people where id = \(dropID)")
        return merged
    }

    /// The id of the person with `email`, their own or an alias; refuses `pair` when there is none.
    private func person(_ email: String, role: String, of pair: Pair) throws -> Int {
        let found = try connection.query("""
            select id from people where email = \(email) and forgotten_at is null
            union all select person_id from person_aliases where email = \(email)
            """).rows.first.map { try $0.decode(Int.self, 0) }
        guard let found else { throw pair.refusal("no person has the email \(email) (\(role))") }
        return found
    }

    /// The email a person has now.
    private func email(of personID: Int) throws -> String {
        try connection.query("select lower(email) from people where id = \(personID)").scalar(String.self)
    }

    /// The emails merged into a person before.
    private func aliases(of personID: Int) throws -> [String] {
        try connection.query("select email from person_aliases where person_id = \(personID) order by email").rows
            .map { try $0.decode(String.self, 0) }
    }

    /// Runs `change` (which moves notifications, and cancels KEEP's newcomer messages), and files
    /// the notifications it changed in `run_images` under `runID` with their images before and
    /// after, since no trigger logs the outbox; returns how many.
    private func logNotifications(of dropID: Int, keep keepID: Int, runID: Int, change: () throws -> Void) throws -> Int {
        try connection.execute("truncate merge_notifications")
        try connection.query("""
            insert into merge_notifications
            select n.id, to_jsonb(n) from notifications n
            where (n.kind = 'newcomer' and n.attendance_id in (select id from attendance where person_id = \(keepID)))
            or n.recipient_id = \(dropID)
            or n.membership_id in (select id from memberships where person_id = \(dropID))
            or n.attendance_id in (select id from attendance where person_id = \(dropID))
            or n.ride_pairing_id in (select p.id from ride_pairings p join ride_offers o on o.id = p.offer_id
                                     join ride_requests r on r.id = p.request_id
                                     where o.driver_id = \(dropID) or r.passenger_id = \(dropID))
            for update of n
            """)
        try change()
        return try connection.query("""
            insert into run_images (run_id, table_name, row_id, operation, before, after)
            select \(runID), 'notifications', n.id, 'update', b.image, to_jsonb(n)
            from notifications n join merge_notifications b using (id)
            where to_jsonb(n) is distinct from b.image
            order by n.id
            """).affectedRows
    }
}
