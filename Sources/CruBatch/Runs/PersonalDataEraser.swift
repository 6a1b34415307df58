import Foundation
import PostgresClient

/// `crubatch forget EMAIL`: erases one person's personal data when they ask to be forgotten. In one
/// transaction the columns the kinds declare personal (`ColumnSpec.personal`) get their placeholders
/// or are cleared, in their row (name, email, phone, sex, school year), in their ride offers and
/// requests (pickup places) and in their check-ins (the time), their memberships end, their ride
/// offers and requests are cancelled, the notifications about them or to them are deleted (the ride
/// messages about their pairings and the newcomer messages about their check-ins too: a message
/// naming "Forgotten Person" would tell nothing), and the earlier change images of those rows
/// (`run_images`, and the rows' copies as inserted and as updated) get the same placeholders. Their email aliases
/// (`people merge`) are deleted, and the images of the aliases and of the people merged into them
/// scrubbed. The run is recorded (kind `forget`, by whom, when) with one `run_images` row that
/// names the person's id and who asked, without the data; the erasure itself is not logged, so its
/// before-image never exists.
public struct PersonalDataEraser {
    /// What one erasure did.
    public struct Report: Sendable, CommandReport {
        public let runID: Int
        public let personID: Int
        public var membershipsEnded = 0
        public var notificationsDeleted = 0
        /// Ride offers and requests of theirs that were cancelled (their pairings end with them).
        public var ridesCancelled = 0
        /// Earlier change images of the person's rows (theirs, their rides') that were scrubbed.
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
                    + "the person, and the database no longer knows them: fix the cause and delete those files "
                    + "(the next nightly writes its own again)")
            }
            return lines.joined(separator: "\n")
        }
    }

    let connection: PostgresConnection
    /// What is erased, as the kinds declare it.
    let personalColumns: PersonalColumns

    public init(connection: PostgresConnection) {
        self.init(connection: connection, personalColumns: .catalog)
    }

    init(connection: PostgresConnection, personalColumns: PersonalColumns) {
        self.connection = connection
        self.personalColumns = personalColumns
    }

    /// Erases the person in the database, then takes them out of the dated folders of `exports` (by
    /// default the folder the last nightly run wrote into). The erasure commits first: a folder that
    /// cannot be cleaned is listed in the report's `exports.failures` and leaves the database erased.
    public func erase(email: String, exports: String? = nil) throws -> Report {
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        // The email they use, or one merged into them: a request under either is theirs.
        guard let personID = try connection.query("""
            select id from people where lower(email) = \(email) and forgotten_at is null
            union all select person_id from person_aliases where email = \(email)
            """).rows.first?.decode(Int.self, 0) else {
            throw CruBatchError.refused("no person has this email, nor was it merged into anyone; nothing was changed")
        }
        let emails = try connection.query("""
            select lower(email) from people where id = \(personID) union select email from person_aliases where person_id = \(personID)
            """).rows.map { try $0.decode(String.self, 0) }
        var isFolder: ObjCBool = false
        if let exports, !FileManager.default.fileExists(atPath: exports, isDirectory: &isFolder) || !isFolder.boolValue {
            throw CruBatchError.usage("--exports \(exports): no such folder (give the folder nightly writes into, "
                + "its --out); nothing was changed")
        }
        let before = try connection.query("""
            select first_name, last_name, phone from people where id = \(personID)
            """).rows[0]
        var report = try eraseInDatabase(personID: personID)
        let after = try connection.query("""
            select email, first_name || ' ' || last_name, coalesce(phone, '') from people where id = \(personID)
            """).rows[0]
        let person = ForgottenPerson(
            emails: Set(emails), firstName: try before.decode(String.self, 0), lastName: try before.decode(String.self, 1),
            phoneDigits: try before.decode(String?.self, 2)?.filter(\.isNumber),
            placeholderEmail: try after.decode(String.self, 0), placeholderName: try after.decode(String.self, 1),
            placeholderPhone: try after.decode(String.self, 2))
        if let directory = try exports ?? NightlyExport.rememberedDirectory(connection: connection) {
            report.exports = NightlyScrubber(directory: directory, person: person).run()
        }
        return report
    }

    /// The erasure itself, in one transaction recorded as a `forget` run.
    private func eraseInDatabase(personID: Int) throws -> Report {
        let run = WriterRun(
            connection: connection, kind: .forget, file: "-",
            locks: .people)
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
                or attendance_id in (select id from attendance where person_id = \(personID))
                or ride_pairing_id in (select p.id from ride_pairings p join ride_offers o on o.id = p.offer_id
                                       join ride_requests r on r.id = p.request_id
                                       where o.driver_id = \(personID) or r.passenger_id = \(personID))
                """).affectedRows
            report.imagesScrubbed = try personalColumns.erasures.reduce(0) { $0 + (try erase($1, of: personID)) }
            report.imagesScrubbed += try eraseAliases(of: personID)
            try connection.query("update people set forgotten_at = now() where id = \(personID)")
            try connection.query("""
                insert into run_images (run_id, table_name, row_id, operation, after)
                values (\(runID), 'people', \(personID), 'forget', jsonb_build_object('requested_by', \(RunLog.user)::text))
                """)
            return report
        }.result
        try run.log.finish(report.runID, status: .succeeded,
                           counts: RunLog.Counts(read: 1, updated: 1, archived: report.membershipsEnded + report.ridesCancelled))
        return report
    }

    /// Gives the personal columns of the person's rows in one table their placeholders, first in the
    /// earlier change images of those rows (found by id, or by key for rows since deleted): the
    /// images kept as JSON, then the rows' copies as inserted and as updated; then in the rows.
    /// Returns how many images were scrubbed.
    private func erase(_ erasure: PersonalColumns.Erasure, of personID: Int) throws -> Int {
        let sameKey = SQLFragment(joining: (["before", "after"] as [SQLFragment]).map { side -> SQLFragment in
            let equal = erasure.keyColumns.map { column -> SQLFragment in
                "c.\(side)->>\(literal: column) = e.\(identifier: column)::text"
            }
            return "(\(SQLFragment(joining: equal, separator: " and ")))"
        }, separator: " or ")
        let keys = SQLFragment(joining: erasure.keyColumns.map { "t.\(identifier: $0)" }, separator: ", ")
        var scrubbed = try connection.query("""
            update run_images c set before = c.before || e.image, after = c.after || e.image
            from (select t.id, \(unescaped: keys), \(unescaped: erasure.image) as image
                  from \(identifier: erasure.table) t where t.\(identifier: erasure.personColumn) = \(personID)) e
            where c.table_name = \(erasure.table) and (c.row_id = e.id or \(unescaped: sameKey))
            """).affectedRows
        let sameCopiedKey = SQLFragment(joining: erasure.keyColumns.map { column -> SQLFragment in
            "c.\(identifier: column) = t.\(identifier: column)"
        }, separator: " and ")
        for (copy, copied) in try copyParts(of: erasure) {
            scrubbed += try connection.query("""
                update \(identifier: copy) c set \(unescaped: copied.assignments)
                from \(identifier: erasure.table) t
                where t.\(identifier: erasure.personColumn) = \(personID) and (c.id = t.id or (\(unescaped: sameCopiedKey)))
                """).affectedRows
        }
        try connection.query("""
            update \(identifier: erasure.table) t set \(unescaped: erasure.assignments)
            where t.\(identifier: erasure.personColumn) = \(personID)
            """)
        return scrubbed
    }

    /// Deletes the person's email aliases, after scrubbing the change images that hold them: the
    /// aliases' own and those of the people `people merge` merged into the person (whose email is
    /// an alias), which get the placeholders of `people`. Returns how many images were scrubbed.
    private func eraseAliases(of personID: Int) throws -> Int {
        let aliases: SQLFragment = "(select email from person_aliases where person_id = \(personID))"
        let aliasImage: SQLFragment = "jsonb_build_object('email', 'forgotten-alias-' || c.row_id || '@invalid')"
        var scrubbed = try connection.query("""
            update run_images c set before = c.before || \(unescaped: aliasImage), after = c.after || \(unescaped: aliasImage)
            where c.table_name = 'person_aliases' and coalesce(c.after, c.before)->>'email' in \(unescaped: aliases)
            """).affectedRows
        for copy in LoggedTable.copies(of: "person_aliases") {
            scrubbed += try connection.query("""
                update \(identifier: copy) c set email = 'forgotten-alias-' || c.id || '@invalid'
                where c.email in \(unescaped: aliases)
                """).affectedRows
        }
        if let people = personalColumns.erasures.first(where: { $0.table == PersonalColumns.people }) {
            scrubbed += try connection.query("""
                update run_images c set before = c.before || e.image, after = c.after || e.image
                from (select i.id, \(unescaped: people.image) as image
                      from run_images i, jsonb_populate_record(null::people, coalesce(i.before, i.after)) t
                      where i.table_name = 'people' and t.email in \(unescaped: aliases)) e
                where c.id = e.id
                """).affectedRows
            for (copy, copied) in try copyParts(of: people) {
                scrubbed += try connection.query("""
                    update \(identifier: copy) t set \(unescaped: copied.assignments)
                    where t.email in \(unescaped: aliases)
                    """).affectedRows
            }
        }
        try connection.query("delete from person_aliases where person_id = \(personID)")
        return scrubbed
    }

    /// Each copy of the table's rows (as inserted, as updated) with the part of `erasure` that applies
    /// to it: every personal column once migrations have run, fewer for a column added outside a
    /// migration (its value was never copied, so there is nothing to erase); none when no column does.
    private func copyParts(of erasure: PersonalColumns.Erasure) throws -> [(copy: String, erasure: PersonalColumns.Erasure)] {
        let copies = LoggedTable.copies(of: erasure.table)
        var columns: [String: Set<String>] = [:]
        for row in try connection.query("""
            select c.copy, a.attname::text from unnest(\(copies)::text[]) c(copy)
            join pg_attribute a on a.attrelid = to_regclass(c.copy)
            and a.attnum > run_copy_meta_columns(\(erasure.table), c.copy) and not a.attisdropped
            """).rows {
            columns[try row.decode(String.self, 0), default: []].insert(try row.decode(String.self, 1))
        }
        return copies.compactMap { copy in
            let copied = erasure.limited(to: columns[copy] ?? [])
            return copied.placeholders.isEmpty ? nil : (copy, copied)
        }
    }

    /// Cancels the person's current ride offers and requests (the kinds whose key names a person and
    /// that are cancelled rather than archived); returns how many.
    private func cancelRides(of personID: Int) throws -> Int {
        try [Kind.rideOffers, .rideRequests].map(KindSpec.of).reduce(0) { cancelled, spec in
            guard let retirement = spec.retirement, let person = spec.personKey else { return cancelled }
            return cancelled + (try connection.query("""
                update \(identifier: spec.table) r set \(unescaped: retirement.retire)
                where r.\(identifier: person) = \(personID) and \(unescaped: retirement.isCurrent(over: "r"))
                """).affectedRows)
        }
    }
}
