import FileOutput
import CSVStream
import Foundation
import PostgresClient

/// What one exported file holds, for the summary and the nightly manifest.
public struct ExportedFile: Sendable, Codable, Equatable {
    public var file: String
    public var rows: Int
    public var bytes: Int
    public var sha256: String
    /// The rows the file could not hold and left out (nil when none): the file holds every other one.
    public var leftOut: [LeftOutRow]?
}

/// A row that one export left out because its file cannot hold it (an event that does not end after
/// it starts, in a calendar: rows written by SQL past `import`'s checks), and why.
public struct LeftOutRow: Sendable, Codable, Equatable {
    /// The kind's noun (`event`) and the row's code.
    public var kind: String
    public var code: String
    public var reason: String

    /// `event "aia-beach-day"`, for messages.
    public var label: String { "\(kind) \(String(reflecting: code))" }

    /// What to do about a row left out, for people.
    public static let hint = "correct the row in the sheet or calendar it came from and import that again; "
        + "every other row was written"
}

/// Data in the database that one export cannot be written from: a code that cannot name a file, a
/// time zone a calendar cannot use. `nightly` skips that one file and lists it under `errors` in the
/// manifest; a single export stops with exit 65.
public struct UnexportableData: Error, CommandFailure, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }

    public var exitStatus: ExitStatus { .dataError }
    public var errorCode: String { "unexportable-data" }
    public var commandMessage: String { description }
}

/// Streams kinds, rosters and calendars out of the database in deterministic order.
public struct Exporter {
    let connection: PostgresConnection
    let calendarTimeZones: CalendarTimeZones

    public init(connection: PostgresConnection) throws {
        self.connection = connection
        calendarTimeZones = CalendarTimeZones(connection: connection)
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
    }

    /// A kind in exactly the format `import` reads (export -> import changes nothing).
    public func exportKind(_ kind: Kind, to target: OutputTarget) throws -> ExportedFile {
        try copyCSV(PostgresQuery(KindSpec.of(kind).exportSQL), to: target)
    }

    /// A kind as one JSON document for scripts: `{"format": 1, "kind": ..., "rows": [{column: value}]}`,
    /// the same columns and values as the CSV, streamed row by row.
    public func exportKindJSON(_ kind: Kind, to target: OutputTarget) throws -> ExportedFile {
        try exportJSON(PostgresQuery(KindSpec.of(kind).exportSQL), kind: kind.rawValue, to: target)
    }

    /// The rows of `query` as one JSON document: `{"format": 1, "command": "export", "kind": ..., "rows":
    /// [{column: value}]}`, streamed row by row.
    func exportJSON(_ query: PostgresQuery, kind: String, to target: OutputTarget) throws -> ExportedFile {
        let sink = try ExportSink(target)
        try sink.write(Array("{\"format\": \(ReportDocument.formatVersion), \"command\": \"export\", \"kind\": \"\(kind)\", \"rows\": [".utf8))
        var first = true
        // One JSON object per row; CSV mode with control-character quote and delimiter passes it
        // through untouched (JSON text never holds a raw control character).
        let rows = try connection.copyOut("""
            select row_to_json(x)::text from (\(query)) x
            """, options: "format csv, delimiter e'\\x02', quote e'\\x01'") { chunk in
            try sink.write(Array((first ? "\n" : ",\n").utf8) + chunk.dropLast(chunk.last == 0x0A ? 1 : 0), flush: false)
            first = false
        }
        try sink.write(Array("\n]}\n".utf8))
        return try sink.finish(rows: rows)
    }

    /// One row per member: the group, its leaders' contacts, the member. Cells that a spreadsheet
    /// would run as a formula are neutralised.
    public func exportRosterCSV(_ scope: ExportScope, to target: OutputTarget) throws -> ExportedFile {
        let columns = SQLFragment(joining: Self.rosterColumns.map { column -> SQLFragment in
            "csv_safe((\(column.expression))::text) as \(identifier: column.name)"
        }, separator: ", ")
        return try copyCSV("""
            select \(unescaped: columns) \(unescaped: Self.rosterFrom) and \(scope.condition) \(unescaped: Self.rosterOrder)
            """, to: target)
    }

    /// The roster as one JSON document: groups, each with its leaders and members.
    public func exportRosterJSON(_ scope: ExportScope, to target: OutputTarget) throws -> ExportedFile {
        let query: PostgresQuery = """
            select jsonb_pretty(jsonb_build_object('format', \(ReportDocument.formatVersion)::int, 'command', 'export', 'kind', 'roster',
                   'groups', coalesce(jsonb_agg(grp order by grp->>'code'), '[]'::jsonb)))
            from (
                select jsonb_build_object(
                    'code', g.code, 'name', g.name, 'ministry', mi.code, 'campus', c.code, 'day', g.meeting_day,
                    'time', to_char(g.meeting_time, 'HH24:MI'), 'location', g.location,
                    'leaders', (\(unescaped: Self.leadersJSON)),
                    'members', coalesce((select jsonb_agg(jsonb_build_object(
                        'first_name', p.first_name, 'last_name', p.last_name, 'email', p.email, 'phone', p.phone,
                        'school_year', p.school_year, 'status', m.status,
                        'events_this_term', \(unescaped: AttendanceStamps.thisTerm(person: "p.id", campus: "c.id")),
                        'joined_at', to_char(m.joined_at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                        order by p.last_name, p.first_name, p.email)
                        from memberships m join people p on p.id = m.person_id
                        where m.group_id = g.id and \(unescaped: KindCatalog.membershipEnd.isCurrent(over: "m"))), '[]'::jsonb)
                ) as grp
                from community_groups g join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
                where \(scope.condition) and \(unescaped: KindCatalog.groupInUse)
            ) groups
            """
        let text = try connection.query(query).scalar(String.self) + "\n"
        let rows = try connection.query("select count(*) \(unescaped: Self.rosterFrom) and \(scope.condition)").scalar(Int.self)
        return try write(Array(text.utf8), rows: rows, to: target)
    }

    /// The codes of every group in a scope, in order (one roster file per group in `nightly`).
    public func groupCodes(_ scope: ExportScope = .everything) throws -> [String] {
        try connection.query("""
            select g.code from community_groups g join ministries mi on mi.id = g.ministry_id
            join campuses c on c.id = mi.campus_id where \(scope.condition) and \(unescaped: KindCatalog.groupInUse)
            order by g.code
            """).rows.map { try $0.decode(String.self, 0) }
    }

    /// Fails with a clear message when a scope names a group, ministry or campus that does not exist.
    public func requireExists(_ scope: ExportScope) throws {
        let table: String, code: String
        switch scope {
        case .everything: return
        case .group(let value): (table, code) = ("community_groups", value)
        case .ministry(let value): (table, code) = ("ministries", value)
        case .campus(let value): (table, code) = ("campuses", value)
        }
        if try connection.query("select 1 from \(identifier: table) where code = \(code.lowercased())").rows.isEmpty {
            throw CruBatchError.usage("no \(scope.label): check the code (see `crubatch export \(table == "community_groups" ? "groups" : table)`)")
        }
    }

    private static let rosterColumns: [(name: String, expression: SQLFragment)] = [
        ("group_code", "g.code"), ("group_name", "g.name"), ("day", "g.meeting_day"),
        ("time", "to_char(g.meeting_time, 'HH24:MI')"), ("location", "g.location"),
        ("leader_names", leaderList("l.first_name || ' ' || l.last_name")),
        ("leader_emails", leaderList("l.email")), ("leader_phones", leaderList("l.phone")),
        ("first_name", "p.first_name"), ("last_name", "p.last_name"), ("email", "p.email"), ("phone", "p.phone"),
        ("school_year", "p.school_year"), ("status", "m.status"),
        ("joined_at", "to_char(m.joined_at, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"),
        ("events_this_term", AttendanceStamps.thisTerm(person: "p.id", campus: "c.id")),
    ]

    private static func leaderList(_ expression: SQLFragment) -> SQLFragment {
        "select string_agg(\(expression), '; ' order by gl.position, l.email) from group_leaders gl join people l on l.id = gl.person_id where gl.group_id = g.id"
    }

    private static let leadersJSON: SQLFragment = """
        select coalesce(jsonb_agg(jsonb_build_object('name', l.first_name || ' ' || l.last_name, 'email', l.email,
            'phone', l.phone) order by gl.position, l.email), '[]'::jsonb)
        from group_leaders gl join people l on l.id = gl.person_id where gl.group_id = g.id
        """

    /// Current members of groups in use; the WHERE that follows adds the scope with `and`.
    private static let rosterFrom: SQLFragment = """
        from memberships m join community_groups g on g.id = m.group_id join people p on p.id = m.person_id
        join ministries mi on mi.id = g.ministry_id join campuses c on c.id = mi.campus_id
        where \(KindCatalog.membershipEnd.isCurrent(over: "m")) and \(KindCatalog.groupInUse)
        """

    private static let rosterOrder: SQLFragment = "order by g.code, p.last_name, p.first_name, p.email"

    /// `COPY (query) TO STDOUT` as CSV with a header, rows ending in CRLF, streamed to the target.
    func copyCSV(_ query: PostgresQuery, to target: OutputTarget) throws -> ExportedFile {
        let sink = try ExportSink(target)
        let rows = try connection.copyOut(query, options: "format csv, header") { chunk in
            try sink.writeRow(chunk)
        }
        return try sink.finish(rows: rows)
    }

    func write(_ bytes: [UInt8], rows: Int, to target: OutputTarget) throws -> ExportedFile {
        let sink = try ExportSink(target)
        try sink.write(bytes)
        return try sink.finish(rows: rows)
    }
}

/// Bytes on their way to an output (a regular file is written atomically, mode 0600); turns COPY's
/// LF row ends into CRLF.
final class ExportSink {
    private let file: OutputFile
    private var pending: [UInt8] = []

    init(_ target: OutputTarget) throws {
        file = try OutputFile(target)
    }

    /// One COPY row: its final LF becomes CRLF (LFs inside quoted cells are data and stay).
    func writeRow(_ chunk: UnsafeRawBufferPointer) throws {
        if chunk.last == 0x0A {
            pending.append(contentsOf: chunk.dropLast())
            pending.append(contentsOf: [0x0D, 0x0A])
        } else {
            pending.append(contentsOf: chunk)
        }
        if pending.count >= 1 << 16 { try flush() }
    }

    /// Bytes as they are; `flush: false` buffers them like rows.
    func write(_ data: [UInt8], flush now: Bool = true) throws {
        pending.append(contentsOf: data)
        if now || pending.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        try file.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Header rows are not counted: COPY reports data rows only. `leftOut`: rows the file could not hold.
    func finish(rows: Int, leftOut: [LeftOutRow] = []) throws -> ExportedFile {
        try flush()
        let (size, digest) = try file.commit()
        return ExportedFile(file: file.target.path, rows: rows, bytes: size, sha256: digest,
                            leftOut: leftOut.isEmpty ? nil : leftOut)
    }
}
