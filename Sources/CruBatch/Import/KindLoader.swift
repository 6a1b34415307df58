import CSVStream
import Foundation
import PostgresClient

/// Progress of one file, for the progress line on a terminal.
public struct ImportProgress: Sendable {
    public let kind: Kind
    public let rows: Int
    public let bytesRead: Int
    public let fileSize: Int
}

/// What loading one file inside the import transaction found and did.
struct KindLoadResult {
    var counts: KindCounts
    var diagnostics: [Diagnostic] = []
    var rejectedLines: Set<Int> = []
    var fatal = false
    var stoppedEarly = false
    var sha256: String?
    /// The columns an `--map` title fed in this file.
    var mappedColumns: Set<String> = []
    /// The keys of the rejected rows, each with its first error, for the rows after it that name them.
    var refusedKeys: [(key: String, note: Diagnostic.Note)] = []
}

/// Loads one file into its kind's table inside an open transaction: streams the validated rows
/// into a temp staging table with COPY, runs the database checks (duplicates, references, time
/// zones, capacity) as set-based queries, then merges what is good. The file is a CSV file, a
/// workbook's sheet or, for events, an iCalendar file (`CalendarEventTable`).
struct KindLoader {
    let spec: KindSpec
    let connection: PostgresConnection
    let options: ImportOptions
    /// `--sync`: what to do, after the merge, with the rows the file no longer lists.
    let sync: SyncStep?
    /// Whose events an iCalendar file holds (`--campus`, `--ministry`).
    var eventOwner: CalendarOwner?
    var errorBudget: Int
    /// The rows of the load refused before this file: rows naming one are told so.
    var refused = RefusedRows()
    var progress: ((ImportProgress) -> Void)?

    /// Where each phase adds its time (`--timings`).
    private var timings: PhaseTimings? { options.timings }

    func load(path: String, displayName: String) throws -> KindLoadResult {
        let started = Date()
        var result = KindLoadResult(counts: KindCounts(kind: spec.kind, file: displayName))
        do {
            let table = try options.openTable(path: path, displayName: displayName, owner: eventOwner)
            try loadTimed(table, into: &result)
            // Every problem where the file's reader finds it: on a workbook's sheet, at an event's property.
            result.diagnostics = result.diagnostics.map(table.locate)
        } catch let unreadable as Diagnostic {
            result.diagnostics.append(unreadable)
            result.fatal = true
        }
        result.counts.seconds = Date().timeIntervalSince(started)
        return result
    }

    private func loadTimed(_ table: any TableReader, into result: inout KindLoadResult) throws {
        let mapping: HeaderMapping
        do throws(Diagnostic) {
            mapping = try HeaderMapping(header: table.header, spec: spec, file: table.displayName, sheet: table.sheet,
                                        overrides: options.columnMap)
        } catch {
            result.diagnostics.append(error)
            result.fatal = true
            return
        }
        result.diagnostics += table.takeWarnings() + mapping.warnings
        result.mappedColumns = mapping.mappedColumns

        let encoder = StagingEncoder(spec: spec)
        try connection.execute(encoder.createTable)
        defer { try? connection.execute("drop table if exists stage") }
        do {
            try stream(table: table, mapping: mapping, encoder: encoder, into: &result)
        } catch let diagnostic as Diagnostic {
            result.diagnostics += table.takeWarnings()
            result.diagnostics.append(diagnostic)
            result.fatal = true
            return
        }
        result.diagnostics += table.takeWarnings()
        result.sha256 = table.sha256Hex
        // The planner mostly needs the row count: a small sample is enough and much cheaper on big files.
        try timings.measure("statistics of the staged rows") { try TableStatistics.sample(["stage"], connection: connection) }

        let checks = DatabaseChecks(spec: spec, connection: connection, mapping: mapping, file: table.displayName,
                                    locksGroups: !options.validateOnly, blank: options.blank,
                                    onDuplicate: options.onDuplicate, campuses: options.campuses, refused: refused)
        for diagnostic in try timings.measure("database checks", { try checks.run(rejectedLines: result.rejectedLines) }) {
            result.diagnostics.append(diagnostic)
            if diagnostic.severity == .error { result.rejectedLines.insert(diagnostic.line) }
        }
        result.counts.rejected = result.rejectedLines.count
        if !result.rejectedLines.isEmpty {
            result.refusedKeys = try refusedKeys(result, file: table.displayName)
            try connection.query("delete from stage where line = any(\(Array(result.rejectedLines))::int[])")
        }
        if let walkIns = spec.walkIns {
            result.counts.peopleAdded = try timings.measure("people added") { try walkIns.addPeople(on: connection) }
        }
        if let addPeople = spec.addPeopleSQL {
            result.counts.peopleAdded = try timings.measure("people added") {
                try connection.query(PostgresQuery(addPeople)).scalar(Int.self)
            }
        }
        let preview = options.previews ? ChangePreview(spec: spec, connection: connection) : nil
        if let preview { try timings.measure("preview: the rows before") { try preview.snapshot() } }
        try merge(into: &result.counts)
        if !options.previews {
            try timings.measure("statistics of the merged tables") {
                try TableStatistics.refresh([spec.table] + spec.lists.map(\.relation.childTable), connection: connection)
            }
        }
        if table is CalendarEventTable || options.move || sync != nil {
            try timings.measure("archive, move and sync") { try archiveMoveAndSync(table, into: &result) }
        }
        if let preview { result.counts.changes = try timings.measure("preview: the changes") { try preview.changes() } }
        result.diagnostics.sort { ($0.line, $0.column ?? 0) < ($1.line, $1.column ?? 0) }
    }

    /// After the merge: archives the events a calendar file cancels, ends the other memberships a
    /// `--move` file's students held, and archives what a `--sync` file no longer lists.
    private func archiveMoveAndSync(_ table: any TableReader, into result: inout KindLoadResult) throws {
        if let calendar = table as? CalendarEventTable {
            try archive(calendar.cancelledCodes, into: &result.counts)
        }
        if options.move {
            result.counts.archived += try connection.query(MembershipMove.endingOthers(listedIn: spec.resolveSQL)).rows.count
        }
        if let sync, result.rejectedLines.isEmpty {
            let counts = result.counts
            let outcome = try sync.run(on: connection, staged: counts.inserted + counts.updated + counts.restored + counts.unchanged)
            result.counts.archived += outcome.rows.count
            result.counts.archivedRows += outcome.rows
            result.counts.refusal = outcome.refusal
        }
    }

    /// The staged keys of the rejected rows of a kind keyed by one column, each with the row's first
    /// error as the note a later row naming it gets.
    private func refusedKeys(_ result: KindLoadResult, file: String) throws -> [(key: String, note: Diagnostic.Note)] {
        guard spec.keys.count == 1 else { return [] }
        var firstError: [Int: Diagnostic] = [:]
        for diagnostic in result.diagnostics where diagnostic.severity == .error && firstError[diagnostic.line] == nil {
            firstError[diagnostic.line] = diagnostic
        }
        return try connection.query("""
            select s.line, \(unescaped: spec.keys[0].stagedName) from stage s
            where s.line = any(\(Array(result.rejectedLines))::int[]) and \(unescaped: spec.keys[0].stagedName) is not null
            """).rows.compactMap { row in
            let (line, key) = try row.decode((Int, String).self)
            return firstError[line].map { (key, Diagnostic.Note(file: file, line: line, message: $0.message)) }
        }
    }

    /// Archives the stored rows with these codes that are current (events a calendar file cancels).
    private func archive(_ codes: [String], into counts: inout KindCounts) throws {
        guard let retirement = spec.retirement, !codes.isEmpty else { return }
        let archived = try connection.query("""
            update \(identifier: spec.table) t set \(unescaped: retirement.retire)
            where t.code = any(\(codes)::text[]) and \(unescaped: retirement.isCurrent(over: "t")) returning t.code
            """).rows.map { try $0.decode(String.self, 0) }
        counts.archived += archived.count
        counts.archivedRows += archived
    }

    /// Reads every row, validates it in Swift and COPYs it into the staging table: a rejected row too,
    /// with the cells that could be read, so the database checks report its other problems.
    private func stream(table: any TableReader, mapping: HeaderMapping, encoder: StagingEncoder,
                        into result: inout KindLoadResult) throws {
        let validator = RowValidator(spec: spec, mapping: mapping, file: table.displayName, dateOrder: options.dateOrder)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var errors = 0
        // Waiting for the server to take the rows, and to finish the COPY after the last, is the
        // staging's time; the rest is the client's reading, checking and encoding.
        let started = ContinuousClock.now
        var waiting = Duration.zero
        var clientEnded = started
        func send(_ sender: CopyInSender) throws {
            let sending = ContinuousClock.now
            try sender.send(buffer)
            waiting += ContinuousClock.now - sending
        }
        try connection.copyIn(encoder.copySQL) { sender in
            while let row = try table.next() {
                result.counts.read += 1
                let check = validator.validate(row)
                encoder.append(line: row.line, values: check.values, to: &buffer)
                if buffer.count >= 1 << 16 {
                    try send(sender)
                    buffer.removeAll(keepingCapacity: true)
                }
                result.diagnostics += check.diagnostics
                if check.isRejected {
                    result.rejectedLines.insert(check.line)
                    errors += check.diagnostics.count { $0.severity == .error }
                }
                if result.counts.read & 4095 == 0 {
                    progress?(ImportProgress(kind: spec.kind, rows: result.counts.read, bytesRead: table.bytesRead,
                                             fileSize: table.totalBytes))
                }
                if errors >= errorBudget {
                    result.stoppedEarly = true
                    break
                }
            }
            try send(sender)
            clientEnded = ContinuousClock.now
        }
        let client = clientEnded - started - waiting
        timings?.add("read, check and encode rows (client)", client)
        timings?.add("COPY into staging (waiting on the server)", ContinuousClock.now - started - client)
        progress?(ImportProgress(kind: spec.kind, rows: result.counts.read, bytesRead: table.bytesRead,
                                 fileSize: table.totalBytes))
    }

    private func merge(into counts: inout KindCounts) throws {
        let sql = MergeSQL(spec: spec, blank: options.blank)
        let (staged, anyStored) = try timings.measure("merge: match with the stored rows") {
            (try connection.query("select count(*) from stage").scalar(Int.self), try connection.query(sql.anyStored).scalar(Bool.self))
        }
        if !anyStored {
            let keys = try timings.measure("merge: foreign keys and indexes dropped") {
                try BulkLoadKeys.dropIfWorthIt(table: spec.table, tables: [spec.table] + spec.lists.map(\.relation.childTable),
                                               newRows: staged, indexes: true, connection: connection)
            }
            // With the table locked for its keys' drop, a list-holding kind's rows get their ids by
            // their lines, and their lists need not be joined back to them by key.
            let (inserted, ids) = try timings.measure("merge: insert") { () throws -> (Int, LineIDs?) in
                let ids = try keys.flatMap { spec.lists.isEmpty ? nil : try LineIDs.reserve(in: $0, connection: connection) }
                let insert = sql.insert(recording: false, inKeyOrder: !(keys?.onlyPrimaryKeyLeft ?? false), ids: ids)
                return (try connection.query(insert).scalar(Int.self), ids)
            }
            counts.inserted = inserted
            try timings.measure("merge: lists") { for statement in sql.listSync(.firstLoad(ids: ids)) { try connection.execute(statement) } }
            try timings.measure("merge: indexes built, foreign keys added back") { try keys?.restore(connection: connection) }
            counts.unchanged = staged - counts.inserted
            return
        }
        let matched = try timings.measure("merge: match with the stored rows") {
            for statement in sql.setup { try connection.execute(statement) }
            let matched = try MergeSQL.matchPlanner.apply(on: connection) { try connection.query(sql.match).affectedRows }
            // How few rows changed decides the update's plan: without a sample the planner takes a
            // third of the matched rows to differ and hashes the stage and the table whole.
            try TableStatistics.sample(["merge_matched"], connection: connection)
            return matched
        }
        try timings.measure("merge: update (with the change log)") {
            if try connection.query(sql.changedCount).scalar(Int.self) > 0 {
                guard let changed = try connection.query(sql.update).rows.first else {
                    throw PostgresError(kind: .decoding, message: "the merge's update of \(spec.table) returned no counts")
                }
                counts.updated = try changed.decode(Int.self, 0)
                counts.restored = try changed.decode(Int.self, 1)
            }
        }
        // When every staged row named a stored one, nothing is new.
        let allMatched = matched == staged
        counts.inserted = try timings.measure("merge: insert") {
            allMatched ? 0 : try connection.query(sql.insert(recording: true)).scalar(Int.self)
        }
        try timings.measure("merge: lists") {
            try MergeSQL.listSyncPlanner.apply(on: connection) {
                for statement in sql.listSync(allMatched ? .matched : .byKey) { try connection.execute(statement) }
            }
            if let touch = sql.finishLists.first, let count = sql.finishLists.last {
                try connection.execute(touch)
                counts.updated = try connection.query(count).scalar(Int.self)
            }
        }
        try timings.measure("merge: match with the stored rows") { for statement in sql.teardown { try connection.execute(statement) } }
        counts.unchanged = staged - counts.inserted - counts.updated - counts.restored
    }
}
