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
/// Keystone field: `users/5a1f3a06...:phone`. The report ends with the reconciliation: every
/// document read is migrated, refused or not migrated, and every field no row holds is listed.
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
        let findings = mapper.findings
        guard !tables.isEmpty || !findings.refusals.isEmpty else {
            throw CruBatchError.unreadable("\(dump.folder): its collections hold no documents")
        }

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
        let refusals = findings.refusals.map { refusal in
            var diagnostic = Diagnostic(file: dump.folder, line: 0, field: refusal.field, code: .refusedDocument,
                                        message: refusal.message, hint: refusal.hint)
            diagnostic.document = "\(refusal.document.name):\(refusal.field)"
            return diagnostic
        }
        importer.problemsBefore = refusals
        for refusal in findings.refusals {
            guard let table = refusal.table, let key = refusal.key, !key.isEmpty else { continue }
            importer.refusedBefore.add(table: table, key: key, note: Diagnostic.Note(
                file: dump.folder, line: 0, message: refusal.message, document: "\(refusal.document.name):\(refusal.field)"))
        }
        let pairings = mapper.pairings
        let formerNames = mapper.formerNames
        importer.finishing = { rejected in
            try record(tables: tables, lines: lines, rejected: rejected, formerNames: formerNames)
            try seat(pairings)
        }
        var report = try importer.run(sources)
        let located = Dictionary(uniqueKeysWithValues: zip(sources.map(\.displayName), zip(tables, lines).map { table, lines in
            (table, Dictionary(lines.enumerated().map { ($1, $0) }) { first, _ in first })
        }))
        /// The document and Keystone field a staged file's line and column stand for.
        func origin(file: String, line: Int, column: String?) -> (document: KeystoneDocument, field: String?)? {
            guard let (table, rows) = located[file], let row = rows[line] else { return nil }
            return (table.origins[row], column.map { table.fields[$0] ?? $0 })
        }
        report.diagnostics = findings.warnings.map { warning in
            var diagnostic = Diagnostic(file: dump.folder, line: 0, field: warning.field, code: warning.code,
                                        severity: .warning, message: warning.message)
            diagnostic.document = "\(warning.document.name):\(warning.field)"
            return diagnostic
        } + refusals + report.diagnostics.map { diagnostic in
            let column = diagnostic.field ?? located[diagnostic.file].flatMap { table, _ in
                diagnostic.column.flatMap { table.header.indices.contains($0 - 1) ? table.header[$0 - 1] : nil }
            }
            guard let (document, field) = origin(file: diagnostic.file, line: diagnostic.line, column: column) else { return diagnostic }
            var moved = diagnostic
            moved.document = document.name + (field.map { ":" + $0 } ?? "")
            if let note = diagnostic.note, let (cause, causeField) = origin(file: note.file, line: note.line, column: nil) {
                moved.note?.document = cause.name + (causeField.map { ":" + $0 } ?? "")
            }
            return Self.reworded(moved, column: column, field: field)
        }
        report.reconciliation = reconciliation(dump, tables: tables, located: located, findings: findings, report: report)
        return report
    }

    /// Every document's outcome: refused by the mapping or by the import (its own row rejected, by
    /// its first error), not migrated on purpose, or migrated; and the fields of migrated documents
    /// that no row holds.
    private func reconciliation(_ dump: KeystoneDump, tables: [KeystoneTable], located: [String: (KeystoneTable, [Int: Int])],
                                findings: KeystoneFindings, report: ImportReport) -> KeystoneReconciliation {
        var outcome: [ObjectIdentifier: (refused: String?, omitted: String?)] = [:]
        for refusal in findings.refusals { outcome[ObjectIdentifier(refusal.document)] = (refusal.reason, nil) }
        for omission in findings.omissions { outcome[ObjectIdentifier(omission.document)] = (nil, omission.reason) }
        for diagnostic in report.diagnostics where diagnostic.severity == .error && diagnostic.line > 0 {
            guard let (table, rows) = located[diagnostic.file], let row = rows[diagnostic.line], table.owned[row] else { continue }
            let document = ObjectIdentifier(table.origins[row])
            guard outcome[document] == nil else { continue }
            let field = diagnostic.field.map { table.fields[$0] ?? $0 } ?? diagnostic.document?.split(separator: ":").last.map(String.init)
            let reason = diagnostic.note != nil ? "refused above (\(field ?? "a reference"))" : "\(diagnostic.code.rawValue) (\(field ?? "the row"))"
            outcome[document] = (reason, nil)
        }
        let rowed = Set(tables.flatMap { table in zip(table.origins, table.owned).filter(\.1).map { ObjectIdentifier($0.0) } }
            + findings.absorbed.map(ObjectIdentifier.init))
        var collections: [KeystoneReconciliation.Collection] = KeystoneDump.names.compactMap { name in
            let documents = dump[name]
            guard !documents.isEmpty else { return nil }
            var account = KeystoneReconciliation.Collection(collection: name == "campuses" ? dump.campusName : name)
            for document in documents {
                account.read += 1
                switch outcome[ObjectIdentifier(document)] {
                case (let refused?, _)?: account.refused[refused, default: 0] += 1
                case (nil, let omitted?)?: account.notMigrated[omitted, default: 0] += 1
                default:
                    guard rowed.contains(ObjectIdentifier(document)) else {
                        account.notMigrated["no row could be made of it: it has no _id", default: 0] += 1
                        continue
                    }
                    account.migrated += 1
                    for field in document.unreadFields { account.unreadFields[field, default: 0] += 1 }
                }
            }
            return account
        }
        for other in dump.others {
            var account = KeystoneReconciliation.Collection(collection: other.collection, read: other.documents)
            if other.documents > 0 {
                account.notMigrated["a collection crubatch has no kind for", default: 0] += other.documents
                account.unreadFields["*"] = other.documents
            }
            collections.append(account)
        }
        return KeystoneReconciliation(collections: collections)
    }

    /// A diagnostic said as the old app's data, not a CSV file, needs: a reference names a document,
    /// and a ride's driver or passenger has an email only through a user with their phone.
    private static func reworded(_ diagnostic: Diagnostic, column: String?, field: String?) -> Diagnostic {
        var said = diagnostic
        let leaveOut = "or leave the document out with --on-error skip"
        if diagnostic.note != nil {
            said.hint = "the document the note names was refused: see why there; this one loads with it"
        } else if diagnostic.code == .unknownReference {
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

    /// Records in `legacy_ids` the key of every document whose row was not rejected, and the other
    /// names documents had in the old app (a group's slug) under the same key.
    private func record(tables: [KeystoneTable], lines: [[Int]], rejected: [Kind: Set<Int>],
                        formerNames: [(collection: String, name: String, kind: Kind, key: String)]) throws {
        var collections: [String] = [], ids: [String] = [], kinds: [String] = [], keys: [String] = []
        var loaded: [Kind: Set<String>] = [:]
        for (table, lines) in zip(tables, lines) {
            for (row, key) in table.keys.enumerated() {
                guard let key, !key.isEmpty, let id = table.origins[row].id,
                      !(rejected[table.kind]?.contains(lines[row]) ?? false) else { continue }
                collections.append(table.origins[row].collection)
                ids.append(id)
                kinds.append(table.kind.rawValue)
                keys.append(table.kind == .leaders || table.kind == .students ? key.lowercased() : key)
                loaded[table.kind, default: []].insert(key)
            }
        }
        for former in formerNames where loaded[former.kind]?.contains(former.key) == true {
            collections.append(former.collection)
            ids.append(former.name)
            kinds.append(former.kind.rawValue)
            keys.append(former.key)
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
