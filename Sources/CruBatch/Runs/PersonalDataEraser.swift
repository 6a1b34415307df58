import Foundation
import PostgresClient

/// `crubatch forget EMAIL`: erases one person's personal data when they ask to be forgotten. In one
/// transaction their name, email and phone become placeholders (sex and school year are cleared),
/// their memberships end, their ride offers and requests are cancelled, the notifications about
/// them or to them are deleted (the ride messages about their pairings too: a message naming
/// "Forgotten Person" would tell nothing), and the earlier change images of their row in
/// `run_changes` get the same placeholders. The run is recorded (kind `forget`, by whom, when) with one
/// `run_changes` row that names the person's id and who asked, without the data; the erasure
/// itself is not logged, so its before-image never exists.
public struct PersonalDataEraser {
    /// What one erasure did.
    public struct Report: Sendable, CommandReport {
        public let runID: Int
        public let personID: Int
        public var membershipsEnded = 0
        public var notificationsDeleted = 0
        /// Ride offers and requests of theirs that were cancelled (their pairings end with them).
        public var ridesCancelled = 0
        /// Earlier change images of the person's row that were scrubbed.
        public var imagesScrubbed = 0
        /// What was done to the kept nightly folders; nil when no folder was given and nightly has
        /// never recorded one.
        public var exports: NightlyCleanup?

        /// Whether some export file still holding the person could not be cleaned.
        public var exportsFailed: Bool { !(exports?.failures.isEmpty ?? true) }

        public var text: String {
            "forgot person \(personID) (run \(runID)): name, email and phone replaced by placeholders; "
                + "\(membershipsEnded) membership\(membershipsEnded == 1 ? "" : "s") ended, "
                + "\(ridesCancelled) ride offer\(ridesCancelled == 1 ? "" : "s") or request\(ridesCancelled == 1 ? "" : "s") cancelled, "
                + "\(notificationsDeleted) notification\(notificationsDeleted == 1 ? "" : "s") deleted, "
                + "\(imagesScrubbed) earlier change image\(imagesScrubbed == 1 ? "" : "s") scrubbed" + exportsText
        }

        private var exportsText: String {
            guard let exports else {
                return "\nno nightly folder is known (nightly has not run against this database); "
                    + "pass --exports DIR to clean one"
            }
            var lines = ["", "nightly folder \(exports.directory): \(exports.folders.count) dated folder"
                + "\(exports.folders.count == 1 ? "" : "s") checked, \(exports.rewritten.count) file"
                + "\(exports.rewritten.count == 1 ? "" : "s") rewritten, \(exports.removed.count) removed"]
            lines += exports.rewritten.map { "  rewrote \($0)" } + exports.removed.map { "  removed \($0)" }
            lines += exports.failures.map { "  NOT CLEANED \($0)" }
            if exportsFailed {
                lines.append("the database erasure is committed, but the files above marked NOT CLEANED still hold "
                    + "the person: fix the cause and run forget again with --exports (it finds them by the old values)")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The placeholders, as SQL over the person's row `p`: the email stays unique and valid, a
    /// leader keeps a (dummy) phone as the schema requires.
    static let placeholders: [(column: String, value: String)] = [
        ("email", "'forgotten-' || p.id || '@invalid'"), ("first_name", "'Forgotten'"), ("last_name", "'Person'"),
        ("phone", "case when p.is_leader then '+10000000000' end"), ("sex", "null"), ("school_year", "null"),
        ("grad_year", "null"),
    ]

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Erases the person in the database, then takes them out of the dated folders of `exports` (by
    /// default the folder the last nightly run wrote into). The erasure commits first: a folder that
    /// cannot be cleaned is listed in the report's `exports.failures` and leaves the database erased.
    public func erase(email: String, exports: String? = nil) throws -> Report {
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard let personID = try connection.query("select id from people where lower(email) = \(email)").scalar(Int?.self) else {
            throw CruBatchError.refused("no person has this email; nothing was changed")
        }
        if let exports, !FileManager.default.fileExists(atPath: exports) {
            throw CruBatchError.usage("--exports \(exports): no such folder; nothing was changed")
        }
        let before = try connection.query("""
            select first_name, last_name, phone from people where id = \(personID)
            """).rows[0]
        var report = try eraseInDatabase(personID: personID, email: email)
        let after = try connection.query("""
            select email, first_name || ' ' || last_name, coalesce(phone, '') from people where id = \(personID)
            """).rows[0]
        let person = ForgottenPerson(
            email: email, firstName: try before.decode(String.self, 0), lastName: try before.decode(String.self, 1),
            phoneDigits: try before.decode(String?.self, 2)?.filter(\.isNumber),
            placeholderEmail: try after.decode(String.self, 0), placeholderName: try after.decode(String.self, 1),
            placeholderPhone: try after.decode(String.self, 2))
        if let directory = try exports ?? NightlyExport.rememberedDirectory(connection: connection) {
            report.exports = NightlyScrubber(directory: directory, person: person).run()
        }
        return report
    }

    /// The erasure itself, in one transaction recorded as a `forget` run.
    private func eraseInDatabase(personID: Int, email: String) throws -> Report {
        let run = WriterRun(
            connection: connection, kind: .forget, file: "-",
            locks: .writers([.leaders, .students, .memberships, .rideOffers, .rideRequests],
                            against: "an import of people, memberships or rides, or a place,"))
        let report = try run.perform { scope in
            let runID = scope.ids[0]
            var report = Report(runID: runID, personID: personID)
            report.membershipsEnded = try connection.query("""
                update memberships m set \(unescaped: KindCatalog.membershipEnd.retire)
                where m.person_id = \(personID) and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))
                """).affectedRows
            report.ridesCancelled = try cancelRides(of: personID)
            report.notificationsDeleted = try connection.query("""
                delete from notifications where recipient_id = \(personID)
                or membership_id in (select id from memberships where person_id = \(personID))
                or ride_pairing_id in (select p.id from ride_pairings p join ride_offers o on o.id = p.offer_id
                                       join ride_requests r on r.id = p.request_id
                                       where o.driver_id = \(personID) or r.passenger_id = \(personID))
                """).affectedRows
            let values = Self.placeholders.map { "'\($0.column)', \($0.value)" }.joined(separator: ", ")
            report.imagesScrubbed = try connection.query("""
                update run_changes c set before = c.before || erased.image, after = c.after || erased.image
                from (select jsonb_build_object(\(unescaped: values)) as image from people p where p.id = \(personID)) erased
                where c.table_name = 'people'
                and (c.row_id = \(personID) or lower(c.before->>'email') = \(email) or lower(c.after->>'email') = \(email))
                """).affectedRows
            let assignments = Self.placeholders.map { "\($0.column) = \($0.value)" }.joined(separator: ", ")
            try connection.query("""
                update people p set \(unescaped: assignments), forgotten_at = now() where p.id = \(personID)
                """)
            try connection.query("""
                insert into run_changes (run_id, table_name, row_id, operation, after)
                values (\(runID), 'people', \(personID), 'forget', jsonb_build_object('requested_by', \(RunLog.user)::text))
                """)
            return report
        }.result
        try run.log.finish(report.runID, status: "succeeded",
                           counts: RunLog.Counts(read: 1, updated: 1, archived: report.membershipsEnded + report.ridesCancelled))
        return report
    }

    /// Cancels the person's current ride offers and requests (the kinds whose key names a person and
    /// that are cancelled rather than archived); returns how many.
    private func cancelRides(of personID: Int) throws -> Int {
        try [Kind.rideOffers, .rideRequests].map(KindSpec.of).reduce(0) { cancelled, spec in
            guard let retirement = spec.retirement,
                  let person = spec.keys.first(where: { $0.reference?.table == "people" })?.target?.name else { return cancelled }
            return cancelled + (try connection.query("""
                update \(unescaped: spec.table) r set \(unescaped: retirement.retire)
                where r.\(unescaped: person) = \(personID) and \(unescaped: retirement.isCurrent(over: "r"))
                """).affectedRows)
        }
    }
}
