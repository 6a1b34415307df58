import PostgresClient

/// `crubatch undo RUN`: puts back every row a run (import, sync, place) changed, from the images in
/// `run_changes`, in one transaction. Rows the run inserted are deleted; rows it updated, archived,
/// ended or deleted get their values from before the run back (`updated_at` included); the
/// notifications it queued that are still pending are cancelled.
///
/// A membership the run added whose `joined` was already sent to a leader is ended (status `left`)
/// instead of deleted, so that the `left` trigger tells each leader who was told of the join (and
/// only them); its student stays too, as a person a message named. With `notify: false` such
/// memberships are deleted like the others and no one is told. Either way the report counts the
/// `welcome` and `joined` messages already sent about the memberships the run added.
///
/// Nothing is written, and the rows are listed, when a row changed after the run (it is no longer
/// the run's after-image) or a later row uses one the undo would delete, unless `force` says to
/// overwrite them. The SQL is the same for every table: keys and columns come from the catalog.
public struct Undo {
    /// A row that changed after the run, or that uses a row the undo would delete.
    public struct Conflict: Sendable, Equatable, Encodable {
        public let table: String
        /// The row's primary key (`{"id":12}`).
        public let key: JSONValue
        public let reason: String

        public var text: String { "\(table) \(key.compact): \(reason)" }
    }

    /// What an undo did, or the conflicts that stopped it.
    public struct Report: Sendable, CommandReport {
        public let runID: Int
        /// What the run was: `import students students.csv`, `place answers.csv`.
        public let run: String
        public var conflicts: [Conflict] = []
        /// True when the conflicts were overwritten (`--force`).
        public var forced = false
        /// Rows given their old values back, per table.
        public var restored: [String: Int] = [:]
        /// Rows the run had added, removed, per table.
        public var removed: [String: Int] = [:]
        public var notificationsCancelled = 0
        /// Messages about the memberships the run added that had been sent before the undo, per kind.
        public var alreadySent: [String: Int] = [:]
        /// `left` messages queued to the leaders who were told of a join the undo takes back.
        public var leftQueued = 0
        /// Memberships the run added that were ended rather than deleted, because a leader had been told.
        public var membershipsEnded = 0

        public var undone: Bool { conflicts.isEmpty || forced }

        /// 0 when undone; 1 when conflicts stopped it.
        public var exitStatus: ExitStatus { undone ? .ok : .rejected }

        private enum Keys: String, CodingKey {
            case runId, run, undone, forced, conflicts, restored, removed, notificationsCancelled, alreadySent
            case leftQueued, membershipsEnded
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(runID, forKey: .runId)
            try container.encode(run, forKey: .run)
            try container.encode(undone, forKey: .undone)
            try container.encode(forced, forKey: .forced)
            try container.encode(conflicts, forKey: .conflicts)
            try container.encode(restored, forKey: .restored)
            try container.encode(removed, forKey: .removed)
            try container.encode(notificationsCancelled, forKey: .notificationsCancelled)
            try container.encode(alreadySent, forKey: .alreadySent)
            try container.encode(leftQueued, forKey: .leftQueued)
            try container.encode(membershipsEnded, forKey: .membershipsEnded)
        }

        /// What happened, for a terminal: one line, or the refusal and one line per conflict.
        public var text: String {
            let list = conflicts.map { "  " + $0.text }
            guard undone else {
                return (["cannot undo run \(runID) (\(run)): these rows changed after it, or use rows it added; nothing was written (--force overwrites them):"]
                    + list).joined(separator: "\n")
            }
            let tables = LoggedTable.all.compactMap { table -> String? in
                let (back, gone) = (restored[table, default: 0], removed[table, default: 0])
                guard back + gone > 0 else { return nil }
                return "\(table) \(back) restored, \(gone) removed"
            }
            var lines = ["undid run \(runID) (\(run)): " + (tables.isEmpty ? "it had changed no rows" : tables.joined(separator: "; "))
                + "; \(notificationsCancelled) pending notification\(notificationsCancelled == 1 ? "" : "s") cancelled"]
            if !alreadySent.isEmpty {
                let sent = ["welcome", "joined"].compactMap { kind in alreadySent[kind].map { "\($0) \(kind)" } }
                lines.append("already sent: \(sent.joined(separator: ", ")); " + (membershipsEnded == 0
                    ? "no leader is told of the undo (--no-notify, or no join had been sent)"
                    : "\(leftQueued) left notification\(leftQueued == 1 ? "" : "s") queued to the leaders told, "
                        + "\(membershipsEnded) membership\(membershipsEnded == 1 ? "" : "s") ended instead of removed"))
            }
            if forced && !conflicts.isEmpty { lines += ["overwrote \(conflicts.count) row\(conflicts.count == 1 ? "" : "s") changed after the run:"] + list }
            return lines.joined(separator: "\n")
        }
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Undoes a run; `notify: false` (`--no-notify`) tells no leader of a join it takes back.
    public func run(_ runID: Int, force: Bool, notify: Bool = true) throws -> Report {
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        var report = Report(runID: runID, run: try describeUndoable(runID))
        // No import or place may change the rows being put back meanwhile. An undo is no run of its own:
        // it marks the one it undoes.
        let run = WriterRun(connection: connection, entries: [],
                            locks: .writers(Kind.allCases, against: "an import or place"))
        do {
            try run.perform { scope in
                try connection.execute("set local crubatch.undoing = 'on'")
                let changed = Set(try connection.query(
                    "select distinct table_name from run_changes where run_id = \(runID)")
                    .rows.map { try $0.decode(String.self, 0) })
                let logged = try LoggedTable.load(Set(LoggedTable.all), from: connection)
                let tables = logged.filter { changed.contains($0.name) }
                try connection.execute("""
                    create temp table undo_rows
                        (table_name text not null, row_key jsonb not null, before jsonb, after jsonb)
                    on commit drop
                    """)
                for table in tables { try collect(table, of: runID) }
                // A temp table has no statistics unless asked: without them the checks below compare
                // every row with every other (over ten minutes for a run of 12,000 students).
                try connection.execute("analyze undo_rows")
                // The outbox, logged by hand (a merge's moves), points at rows the undo removes by design.
                let triggerLogged = logged.filter { LoggedTable.dependencyOrder.contains($0.name) }
                report.conflicts = try tables.flatMap(changedSince) + dependents(of: tables, among: triggerLogged)
                report.forced = force
                guard report.undone else {
                    scope.commits = false
                    return
                }
                report.alreadySent = try sentAboutAddedMemberships()
                if notify { try keepAnnouncedMemberships() }
                let added = SQLFragment(joining: NotificationSubject.allCases.map { subject -> SQLFragment in
                    """
                    n.\(identifier: subject.column) in (select (u.row_key->>'id')::bigint from undo_rows u
                                            where u.table_name = \(literal: subject.table) and u.before is null)
                    """
                }, separator: " or ")
                report.notificationsCancelled = try connection.query("""
                    update notifications n set status = \(unescaped: NotificationStatus.cancelled.sql), last_error = \("run \(runID) was undone")
                    where n.status = \(unescaped: NotificationStatus.pending.sql) and (\(unescaped: added))
                    """).affectedRows
                // The triggers cancel more as rows come back (a ride-cancelled whose pairing is restored).
                try connection.execute("""
                    create temp table undo_pending on commit drop as
                        select id from notifications where status = \(unescaped: NotificationStatus.pending.sql)
                    """)
                if notify { (report.membershipsEnded, report.leftQueued) = try endAnnouncedMemberships() }
                for table in tables { report.restored[table.name] = try putBack(table) }
                for table in tables.reversed() { report.removed[table.name] = try remove(table) }
                report.notificationsCancelled += try connection.query("""
                    select count(*) from notifications n join undo_pending p using (id) where n.status = \(unescaped: NotificationStatus.cancelled.sql)
                    """).scalar(Int.self)
                try connection.query("update import_runs set status = \(RunStatus.undone), undone_at = now() where id = \(runID)")
            }
        } catch let error as PostgresError where ["23503", "23505", "CB001", "CB002"].contains(error.sqlState) {
            // A key taken again, a row still used, a group or a car full again: rows outside the run stand in the way.
            throw CruBatchError.refused("cannot undo run \(runID): \(error.description)")
        }
        return report
    }

    /// The `welcome` and `joined` messages already sent about the memberships the run added, per kind.
    private func sentAboutAddedMemberships() throws -> [String: Int] {
        // Locking them first waits for a notify that is sending one right now, so a message sent
        // during the undo is counted (as it stands once sent), never taken back silently.
        var counts: [String: Int] = [:]
        for row in try connection.query("""
            with about as materialized (
                select n.kind, n.status from notifications n join undo_rows u on u.table_name = 'memberships'
                and u.before is null and (u.row_key->>'id')::bigint = n.membership_id
                for update of n)
            select kind, count(*)::int from about
            where status = \(unescaped: NotificationStatus.sent.sql) and kind in ('welcome', 'joined') group by kind
            """).rows {
            counts[try row.decode(String.self, 0)] = try row.decode(Int.self, 1)
        }
        return counts
    }

    /// Takes out of the undo the memberships the run added that a leader was told of (a `joined`
    /// sent), and the people the run added who are their students: they are ended instead
    /// (`endAnnouncedMemberships`), and a person named in a sent message stays.
    private func keepAnnouncedMemberships() throws {
        try connection.execute("""
            create temp table undo_announced on commit drop as
            select m.id, m.person_id from memberships m join undo_rows u
            on u.table_name = 'memberships' and u.before is null and (u.row_key->>'id')::bigint = m.id
            where exists (select 1 from notifications n
                          where n.membership_id = m.id and n.kind = 'joined' and n.status = \(unescaped: NotificationStatus.sent.sql))
            """)
        try connection.execute("""
            delete from undo_rows u using undo_announced a
            where u.before is null and (u.row_key->>'id')::bigint = case u.table_name when 'memberships' then a.id
                                                                        when 'people' then a.person_id end
            """)
    }

    /// Ends the memberships `keepAnnouncedMemberships` kept: the `left` trigger cancels what is still
    /// pending about them and tells each leader who was told of the join. Returns how many ended and
    /// how many `left` messages were queued.
    private func endAnnouncedMemberships() throws -> (ended: Int, queued: Int) {
        let ended = try connection.query("""
            update memberships m set \(unescaped: KindCatalog.membershipEnd.retire)
            where m.id in (select id from undo_announced)
            and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))
            """).affectedRows
        let queued = try connection.query("""
            select count(*) from notifications
            where kind = 'left' and status = \(unescaped: NotificationStatus.pending.sql) and membership_id in (select id from undo_announced)
            """).scalar(Int.self)
        return (ended, queued)
    }

    /// What the run was, or why it cannot be undone.
    private func describeUndoable(_ runID: Int) throws -> String {
        guard let row = try connection.query("""
            select kind, file_name, status, dry_run from import_runs where id = \(runID)
            """).rows.first else {
            throw CruBatchError.usage("there is no run \(runID) (see `crubatch runs`)")
        }
        let kind = try row.decode(String.self, 0), file = try row.decode(String.self, 1)
        let status = RunStatus(rawValue: try row.decode(String.self, 2))
        if kind == "forget" { throw CruBatchError.refused("run \(runID) erased a person's data (forget); that cannot be undone") }
        if try row.decode(Bool.self, 3) { throw CruBatchError.refused("run \(runID) was a dry run: it wrote nothing") }
        switch status {
        case .succeeded: break
        case .undone: throw CruBatchError.refused("run \(runID) was undone already")
        case .running: throw CruBatchError.refused("run \(runID) never finished: it wrote nothing")
        case .rejected, .failed, nil: throw CruBatchError.refused("run \(runID) \(status?.rawValue ?? "ended"): it wrote nothing")
        }
        return RunLog.description(kind: kind, file: file)
    }

    /// Each row the run changed, once: its image before the run's first change and after its last.
    private func collect(_ table: LoggedTable, of runID: Int) throws {
        try connection.query("""
            insert into undo_rows
            select \(table.name), row_key, (array_agg(before order by id))[1], (array_agg(after order by id desc))[1]
            from (select id, before, after, \(unescaped: table.key(of: "coalesce(after, before)")) as row_key
                  from run_changes where run_id = \(runID) and table_name = \(table.name) and operation <> 'forget') change
            group by row_key
            """)
    }

    /// Rows whose state now is not the one the run left.
    private func changedSince(_ table: LoggedTable) throws -> [Conflict] {
        let first = table.primaryKey[0]
        return try connection.query("""
            select u.row_key::text,
                   case when stored.\(identifier: first) is null then 'deleted after the run'
                        when u.after is null then 'added again after the run'
                        else 'changed after the run: ' || (select string_agg(name, ', ' order by name) from jsonb_object_keys(u.after) name
                                                          where to_jsonb(stored)->name is distinct from u.after->name) end
            from undo_rows u cross join lateral jsonb_populate_record(null::\(identifier: table.name), u.row_key) wanted
            left join \(identifier: table.name) stored on \(unescaped: table.matches("stored", "wanted"))
            where u.table_name = \(table.name) and to_jsonb(stored) is distinct from u.after
            order by 1
            """).rows.map {
                Conflict(table: table.name, key: JSONValue(text: try $0.decode(String.self, 0)) ?? .null,
                         reason: try $0.decode(String.self, 1))
            }
    }

    /// Rows outside the run that use (by foreign key) a row the run added, which the undo would delete.
    private func dependents(of tables: [LoggedTable], among logged: [LoggedTable]) throws -> [Conflict] {
        let references = try connection.query("""
            select child.relname, a.attname, parent.relname, pa.attname
            from pg_constraint con
            join pg_class child on child.oid = con.conrelid join pg_class parent on parent.oid = con.confrelid
            join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
            join pg_attribute pa on pa.attrelid = con.confrelid and pa.attnum = con.confkey[1]
            where con.contype = 'f' and cardinality(con.conkey) = 1
            and con.confrelid = any(\(tables.map(\.name))::regclass[]) and con.conrelid = any(\(logged.map(\.name))::regclass[])
            order by 1, 2
            """).rows
        var conflicts: [Conflict] = []
        for reference in references {
            let childName = try reference.decode(String.self, 0), column = try reference.decode(String.self, 1)
            let parent = try reference.decode(String.self, 2), parentColumn = try reference.decode(String.self, 3)
            guard let child = logged.first(where: { $0.name == childName }) else { continue }
            let childKey = child.key(of: "to_jsonb(x)")
            conflicts += try connection.query("""
                select \(unescaped: childKey)::text, u.row_key::text from undo_rows u
                join \(identifier: child.name) x on to_jsonb(x.\(identifier: column)) = u.after->\(unescaped: SQLFragment(literal: parentColumn))
                where u.table_name = \(parent) and u.before is null and u.after is not null
                and not exists (select 1 from undo_rows v where v.table_name = \(child.name) and v.before is null
                                and v.row_key = \(unescaped: childKey))
                order by 1
                """).rows.map { row in
                Conflict(table: child.name, key: JSONValue(text: try row.decode(String.self, 0)) ?? .null,
                         reason: "uses \(parent) \((JSONValue(text: try row.decode(String.self, 1)) ?? .null).compact), which the run added")
            }
        }
        return conflicts
    }

    /// Rows the run updated or deleted, back as they were; returns how many.
    private func putBack(_ table: LoggedTable) throws -> Int {
        let primaryKey = SQLFragment(joining: table.primaryKey.map(SQLFragment.init(identifier:)), separator: ", ")
        let updates = table.otherColumns.map { column -> SQLFragment in
            "\(identifier: column) = excluded.\(identifier: column)"
        }
        let onConflict: SQLFragment = updates.isEmpty ? "do nothing"
            : "do update set \(SQLFragment(joining: updates, separator: ", "))"
        return try connection.query("""
            insert into \(identifier: table.name) overriding system value
            select restored.* from undo_rows u cross join lateral jsonb_populate_record(null::\(identifier: table.name), u.before) restored
            where u.table_name = \(table.name) and u.before is not null
            on conflict (\(unescaped: primaryKey)) \(unescaped: onConflict)
            """).affectedRows
    }

    /// Rows the run inserted, deleted; returns how many.
    private func remove(_ table: LoggedTable) throws -> Int {
        try connection.query("""
            delete from \(identifier: table.name) stored
            using undo_rows u, lateral jsonb_populate_record(null::\(identifier: table.name), u.row_key) gone
            where u.table_name = \(table.name) and u.before is null and \(unescaped: table.matches("stored", "gone"))
            """).affectedRows
    }
}
