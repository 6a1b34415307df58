import CSVStream
import FileOutput
import Foundation
import PostgresClient

/// `crubatch import --from keystone DIR`: moves the old Keystone app's MongoDB data (a mongodump
/// folder or mongoexport files) into crubatch's kinds, once and repeatably.
///
/// The documents become rows of each kind's CSV format (`KeystoneTables`), written to a private
/// temporary folder and loaded by the `Importer` as `import --dir` loads a folder: one
/// transaction, dependency order, every check, `--dry-run`, `--on-error skip` and rejects, one run
/// per kind for `runs` and `undo`. A migration is a backfill, so every message it queues is
/// suppressed. In the same transaction `legacy_ids` records the key each document was given, so
/// the next migration of the same data finds the same rows. Diagnostics name the document and the
/// Keystone field: `users/5a1f3a06...:phone`.
public struct KeystoneMigration {
    let connection: PostgresConnection
    let options: ImportOptions
    var progress: ((ImportProgress) -> Void)?

    public init(connection: PostgresConnection, options: ImportOptions, progress: ((ImportProgress) -> Void)? = nil) {
        self.connection = connection
        self.options = options
        self.progress = progress
    }

    /// Migrates the dump in `folder`.
    public func run(dump folder: String) throws -> ImportReport {
        let dump = try KeystoneDump.read(folder)
        try Migrator(connection: connection).requireCurrent()
        var mapper = KeystoneTables(dump: dump, stored: try storedKeys())
        let tables = mapper.tables()
        guard !tables.isEmpty else { throw CruBatchError.unreadable("\(dump.folder): its collections hold no documents") }

        // The rows are people's data: staged in files without a name, gone however the run ends.
        var staged: [UnnamedFile] = []
        defer { staged.forEach { $0.close() } }
        var sources: [Importer.Source] = []
        var lines: [[Int]] = []
        for table in tables {
            let file = try UnnamedFile(in: Self.temporaryFolder)
            staged.append(file)
            lines.append(try Self.write(table, to: file))
            sources.append(Importer.Source(kind: table.kind, path: file.path,
                                           displayName: "\(dump.folder) (keystone \(table.kind.rawValue))"))
        }
        var options = self.options
        options.messages = JoinMessages(notify: false, welcome: false)
        var importer = Importer(connection: connection, options: options, progress: progress)
        let pairings = mapper.pairings
        importer.finishing = { rejected in
            try record(tables: tables, lines: lines, rejected: rejected)
            try seat(pairings)
        }
        var report = try importer.run(sources)
        let located = Dictionary(uniqueKeysWithValues: zip(sources.map(\.displayName), zip(tables, lines).map { table, lines in
            (table, Dictionary(lines.enumerated().map { ($1, $0) }) { first, _ in first })
        }))
        report.diagnostics = mapper.warnings.map { warning in
            var diagnostic = Diagnostic(file: dump.folder, line: 0, field: warning.field, code: .unknownReference,
                                        severity: .warning, message: warning.message)
            diagnostic.document = "\(warning.collection)/\(warning.id):\(warning.field)"
            return diagnostic
        } + report.diagnostics.map { diagnostic in
            guard let (table, rows) = located[diagnostic.file], let row = rows[diagnostic.line] else { return diagnostic }
            var moved = diagnostic
            let origin = table.origins[row]
            let column = diagnostic.field ?? diagnostic.column.flatMap { table.header.indices.contains($0 - 1) ? table.header[$0 - 1] : nil }
            let field = column.map { table.fields[$0] ?? $0 }
            moved.document = "\(origin.collection)/\(origin.id)" + (field.map { ":" + $0 } ?? "")
            return Self.reworded(moved, column: column, field: field)
        }
        return report
    }

    /// A diagnostic said as the old app's data, not a CSV file, needs: a reference names a document,
    /// and a ride's driver or passenger has an email only through a user with their phone.
    private static func reworded(_ diagnostic: Diagnostic, column: String?, field: String?) -> Diagnostic {
        var said = diagnostic
        let leaveOut = "or leave the document out with --on-error skip"
        if diagnostic.code == .unknownReference {
            said.hint = "no document of the dump has this ObjectId: correct the reference in the old app, \(leaveOut)"
        } else if diagnostic.code == .missingValue && column == "email" {
            if field == "email" {
                said.hint = "give the user an email in the old app, \(leaveOut)"
            } else {
                said.message = "no user has this \(field ?? "phone"), so the ride has no one's email"
                said.hint = "give a user this phone number in the old app, \(leaveOut)"
            }
        }
        return said
    }

    /// The keys earlier migrations gave documents: collection -> ObjectId -> key.
    private func storedKeys() throws -> [String: [String: String]] {
        var keys: [String: [String: String]] = [:]
        for row in try connection.query("select collection, object_id, key from legacy_ids").rows {
            let (collection, id, key) = try row.decode((String, String, String).self)
            keys[collection, default: [:]][id] = key
        }
        return keys
    }

    /// Records in `legacy_ids` the key of every document whose row was not rejected.
    private func record(tables: [KeystoneTable], lines: [[Int]], rejected: [Kind: Set<Int>]) throws {
        var collections: [String] = [], ids: [String] = [], kinds: [String] = [], keys: [String] = []
        for (table, lines) in zip(tables, lines) {
            for (row, key) in table.keys.enumerated() {
                guard let key, !key.isEmpty, !(rejected[table.kind]?.contains(lines[row]) ?? false) else { continue }
                collections.append(table.origins[row].collection)
                ids.append(table.origins[row].id)
                kinds.append(table.kind.rawValue)
                keys.append(table.kind == .leaders || table.kind == .students ? key.lowercased() : key)
            }
        }
        try connection.execute("""
            insert into legacy_ids (collection, object_id, kind, key)
            select * from unnest(\(collections)::text[], \(ids)::text[], \(kinds)::text[], \(keys)::text[])
            on conflict (collection, object_id) do update set kind = excluded.kind, key = excluded.key, migrated_at = now()
            where (legacy_ids.kind, legacy_ids.key) is distinct from (excluded.kind, excluded.key)
            """)
    }

    /// Seats the rides' passengers, on each leg that has no active pairing yet (an earlier
    /// migration's, or one `rides pair` made since); those whose offer or request was rejected are
    /// left out.
    private func seat(_ pairings: [KeystoneTables.Pairing]) throws {
        guard !pairings.isEmpty else { return }
        try connection.execute("""
            insert into ride_pairings (offer_id, request_id, leg)
            select o.id, r.id, p.leg
            from unnest(\(pairings.map(\.event))::text[], \(pairings.map(\.driver))::text[],
                        \(pairings.map(\.passenger))::text[], \(pairings.map(\.leg))::text[]) as p(event, driver, passenger, leg)
            join events e on e.code = p.event
            join people d on lower(d.email) = lower(p.driver)
            join ride_offers o on o.event_id = e.id and o.driver_id = d.id and o.status = 'open'
            join people q on lower(q.email) = lower(p.passenger)
            join ride_requests r on r.event_id = e.id and r.passenger_id = q.id and r.status = 'pending'
            order by o.id, r.id, p.leg
            on conflict (request_id, leg) where ended_at is null do nothing
            """)
    }

    /// Writes the table into `file` as CSV; the physical line of each row (a description with
    /// line breaks takes several).
    private static func write(_ table: KeystoneTable, to file: UnnamedFile) throws -> [Int] {
        let writer = CSVWriter()
        var bytes: [UInt8] = []
        writer.append(table.header, to: &bytes)
        var line = 2
        var lines: [Int] = []
        for row in table.rows {
            let cells = row.map { $0.replacingOccurrences(of: "\r\n", with: "\n") }
            lines.append(line)
            line += 1 + cells.reduce(0) { $0 + $1.utf8.filter { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }.count }
            writer.append(cells, to: &bytes)
        }
        try bytes.withUnsafeBytes { try file.write($0) }
        return lines
    }

    /// A new folder only this user can read, under TMPDIR.
    /// Where the staged rows are written: TMPDIR, else /tmp.
    private static var temporaryFolder: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }
}
