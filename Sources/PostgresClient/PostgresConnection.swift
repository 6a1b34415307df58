import Foundation
import CLibPQ
import Credentials
#if canImport(Glibc)
import Glibc
#endif

/// The rows of a query, decoded into Swift types with `PostgresRow.decode`.
public struct QueryResult: Sendable {
    public let columns: [String]
    public let rows: [PostgresRow]
    /// Rows affected by INSERT/UPDATE/DELETE (PQcmdTuples), 0 otherwise.
    public let affectedRows: Int

    /// The first column of the only row, for `select count(*)` and the like; a query that returns
    /// no row is a `.decoding` error.
    public func scalar<T: PostgresDecodable>(_ type: T.Type) throws(PostgresError) -> T {
        guard let row = rows.first else { throw PostgresError(kind: .decoding, message: "no row in the result") }
        return try row.decode(type, 0)
    }

    /// The first column of the first row, nil when there is no row or it is NULL.
    public func scalar<T: PostgresDecodable>(_ type: T?.Type) throws(PostgresError) -> T? {
        guard let row = rows.first else { return nil }
        return try row.decode(type, 0)
    }
}

/// A notification received on a channel this connection LISTENs to.
public struct PostgresNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    public let processID: Int32
}

/// One libpq connection: parameterised queries, transactions, advisory locks, streaming COPY in and
/// out (CSV), and LISTEN/NOTIFY. Not thread-safe: one connection per task.
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// The secrets of the connection string, kept out of every message.
    private let credentials: Credentials
    /// `host:port` (or socket directory) as libpq resolved it, for messages.
    public let endpoint: String
    /// The server-side names of the statements `queryPrepared` prepared, by their text, and how many
    /// names it has given (a name is never given twice).
    private var preparedNames: [String: String] = [:]
    private var namesGiven = 0

    /// Connects with a URL or key=value string; the empty string means libpq's defaults (PG* variables).
    public init(_ connection: String, applicationName: String = "crubatch") throws(PostgresError) {
        credentials = Credentials(in: connection)
        // libpq processes keywords in order and keeps the last value: defaults come before the
        // connection string (so its own connect_timeout, options, application_name win) and the
        // encoding after it (results are decoded as UTF-8). The server checks every second that the
        // client is still there, so a killed crubatch's query stops and its locks go within a second.
        let keywords = ["application_name", "connect_timeout", "options", "dbname", "client_encoding"]
        let values = [applicationName, "10", "-c client_min_messages=warning -c client_connection_check_interval=1000",
                      connection, "UTF8"]
        let handle = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let handle else { throw PostgresError(kind: .connection, message: "out of memory") }
        self.handle = handle
        let host = PQhost(handle).map { String(cString: $0) } ?? "localhost"
        let port = PQport(handle).map { String(cString: $0) } ?? "5432"
        endpoint = credentials.scrub(host.hasPrefix("/") ? "\(host) (socket), port \(port)" : "\(host):\(port)")
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.firstLine(String(cString: PQerrorMessage(handle)))
            let tried = Self.configuredHosts(handle).map { "PostgreSQL at \($0)" } ?? "PostgreSQL at \(endpoint)"
            throw PostgresError(kind: .connection, message: credentials.scrub("cannot connect to \(tried): \(reason)"))
        }
    }

    deinit { PQfinish(handle) }

    // MARK: Queries

    /// Runs one statement; interpolated values travel as `$n` parameters. Returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery) throws(PostgresError) -> QueryResult {
        let result = withOptionalCStringArray(query.binds) { values in
            PQexecParams(handle, query.sql, Int32(query.binds.count), nil, values, nil, nil, 0)
        }
        return try consume(result, sql: query.sql)
    }

    /// Runs one statement as `query` does, but prepared on the server the first time and reused
    /// after, so PostgreSQL parses and plans its text once per connection: for a statement a loop
    /// runs thousands of times with new values, where parsing and planning cost more than the work.
    /// Its text (with `$n` where the values go) names it, so only the values may vary between runs.
    /// A statement the server no longer has (`DEALLOCATE`, `DISCARD ALL`) is prepared again.
    @discardableResult
    public func queryPrepared(_ query: PostgresQuery) throws(PostgresError) -> QueryResult {
        do {
            return try executePrepared(query)
        } catch where error.sqlState == "26000" && preparedNames[query.sql] != nil {
            preparedNames[query.sql] = nil
            return try executePrepared(query)
        }
    }

    /// A name for a statement to prepare, never given before on this connection.
    private func newStatementName() -> String {
        namesGiven += 1
        return "crubatch_\(namesGiven)"
    }

    private func executePrepared(_ query: PostgresQuery) throws(PostgresError) -> QueryResult {
        let name: String
        if let known = preparedNames[query.sql] {
            name = known
        } else {
            name = newStatementName()
            _ = try consume(PQprepare(handle, name, query.sql, Int32(query.binds.count), nil), sql: query.sql)
            preparedNames[query.sql] = name
        }
        let result = withOptionalCStringArray(query.binds) { values in
            PQexecPrepared(handle, name, Int32(query.binds.count), values, nil, nil, 0)
        }
        return try consume(result, sql: query.sql)
    }

    /// Runs `statements` in order in one round trip to the server (libpq's pipeline mode), each
    /// prepared as `queryPrepared` prepares it, and returns their results in order. For a loop whose
    /// every turn runs the same few short statements, such as COMMIT and BEGIN, where waiting for
    /// each answer costs more than the work. The server stops at the first that fails, runs none
    /// after it, and that failure is thrown; a transaction it was in is then aborted, as after any
    /// failed statement. A statement the server no longer has fails with SQLSTATE 26000 and is
    /// prepared again next time.
    @discardableResult
    public func pipeline(_ statements: [PostgresQuery]) throws(PostgresError) -> [QueryResult] {
        guard PQenterPipelineMode(handle) == 1 else { throw failure(.query) }
        defer { PQexitPipelineMode(handle) }
        // What was sent, in order: each gives one result, then NULL; the sync point ends them all.
        var sent: [(sql: String, preparing: String?)] = []
        var sendFailure: PostgresError?
        for statement in statements {
            let name: String
            if let known = preparedNames[statement.sql] ?? sent.first(where: { $0.sql == statement.sql })?.preparing {
                name = known
            } else {
                name = newStatementName()
                guard PQsendPrepare(handle, name, statement.sql, Int32(statement.binds.count), nil) == 1 else {
                    sendFailure = failure(.query)
                    break
                }
                sent.append((statement.sql, name))
            }
            guard withOptionalCStringArray(statement.binds, { values in
                PQsendQueryPrepared(handle, name, Int32(statement.binds.count), values, nil, nil, 0)
            }) == 1 else {
                sendFailure = failure(.query)
                break
            }
            sent.append((statement.sql, nil))
        }
        guard PQpipelineSync(handle) == 1 else { throw sendFailure ?? failure(.query) }
        var results: [QueryResult] = [], firstError = sendFailure
        for (sql, preparing) in sent {
            guard let result = PQgetResult(handle) else {
                firstError = firstError ?? failure(.query)
                break
            }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                do throws(PostgresError) {
                    let done = try consume(result, sql: sql, keepDraining: false)
                    if let preparing { preparedNames[sql] = preparing } else { results.append(done) }
                } catch {
                    if error.sqlState == "26000" { preparedNames[sql] = nil }
                    firstError = firstError ?? error
                }
            }
            while let rest = PQgetResult(handle) { PQclear(rest) }
        }
        // Up to the sync point; a lost connection has none.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let firstError { throw firstError }
        return results
    }

    /// Runs one statement for its effect (BEGIN, SET, DDL, an UPDATE whose count is not needed).
    /// It takes a `PostgresQuery`, so interpolated values travel as `$n` parameters, as in `query`.
    public func execute(_ statement: PostgresQuery) throws(PostgresError) {
        try query(statement)
    }

    /// Sends `statement` and, while the server runs it, runs `work` here; then waits for the
    /// statement's end and returns what `work` returned. For a writer whose next step needs nothing
    /// back from this one, so that the server's work and its own overlap on two cores. The statement
    /// is waited for whatever `work` does, so the connection is free again when this returns; if
    /// both fail, the statement's error is the one thrown.
    public func execute<T>(_ statement: PostgresQuery, while work: () throws -> T) throws -> T {
        try query(statement, while: work).work
    }

    /// The same, returning the statement's rows too.
    public func query<T>(_ statement: PostgresQuery, while work: () throws -> T) throws -> (result: QueryResult, work: T) {
        let sent = withOptionalCStringArray(statement.binds) { values in
            PQsendQueryParams(handle, statement.sql, Int32(statement.binds.count), nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw failure(.query) }
        let done = Result { try work() }
        let result = try consume(PQgetResult(handle), sql: statement.sql)
        drainResults()
        return (result, try done.get())
    }

    /// Runs a script of several statements separated by semicolons, without parameters: migrations
    /// and test fixtures.
    ///
    /// - Warning: its text goes to the server as it is, with no binds: it must be crubatch's own
    ///   SQL, never text that holds a value from a file, a user or the database. Every other
    ///   statement goes through `PostgresQuery`.
    public func script(_ sql: String) throws(PostgresError) {
        _ = try consume(PQexec(handle, sql), sql: sql)
    }

    /// Runs `body` in a transaction: COMMIT if it returns, ROLLBACK if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Takes a session advisory lock if it is free; false if another session holds it.
    public func tryAdvisoryLock(_ key: Int64) throws(PostgresError) -> Bool {
        try query("select pg_try_advisory_lock(\(key))").scalar(Bool.self)
    }

    /// Waits for a session advisory lock.
    public func advisoryLock(_ key: Int64) throws(PostgresError) {
        try query("select pg_advisory_lock(\(key))")
    }

    public func advisoryUnlock(_ key: Int64) throws(PostgresError) {
        try query("select pg_advisory_unlock(\(key))")
    }

    // MARK: COPY

    /// Sends a COPY statement and checks that the server switched to the expected COPY mode. COPY
    /// takes no parameters: the statement's binds are inlined as quoted literals (PQescapeLiteral,
    /// on the client), in the one scan of `replacingPlaceholders`.
    private func startCopy(_ statement: PostgresQuery, expecting mode: ExecStatusType, _ name: String) throws {
        let sql = statement.binds.isEmpty ? statement.sql
            : statement.replacingPlaceholders { $0 <= statement.binds.count ? quoteLiteral(statement.binds[$0 - 1]) : "$\($0)" }
        let start = PQexec(handle, sql)
        guard PQresultStatus(start) == mode else {
            _ = try consume(start, sql: statement.sql)
            throw PostgresError(kind: .copy, message: "\(statement.sql) did not start a \(name)")
        }
        PQclear(start)
    }

    /// Reads the COPY's final results; returns the row count the server reports.
    private func finishCopy() throws -> Int {
        var copied = 0
        while let result = PQgetResult(handle) {
            copied = Int(String(cString: PQcmdTuples(result))) ?? copied
            _ = try consume(result, sql: "COPY", keepDraining: false)
        }
        return copied
    }

    /// Streams rows into `COPY ... FROM STDIN`: `body` calls the sender with chunks of data in the
    /// COPY's format. Returns the number of rows copied.
    @discardableResult
    public func copyIn(_ statement: PostgresQuery, _ body: (CopyInSender) throws -> Void) throws -> Int {
        try startCopy(statement, expecting: PGRES_COPY_IN, "COPY FROM STDIN")
        let sender = CopyInSender(handle: handle)
        do {
            try body(sender)
        } catch {
            PQputCopyEnd(handle, "aborted by client")
            drainResults()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw failure(.copy) }
        let copied = try finishCopy()
        return copied
    }

    /// Streams `COPY (query) TO STDOUT (options)`, handing each chunk (usually one row) to `body`.
    /// COPY takes no parameters, so the query's binds are inlined as quoted literals
    /// (PQescapeLiteral, on the client). Returns rows copied.
    @discardableResult
    public func copyOut(_ query: PostgresQuery, options: SQLFragment,
                        _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try startCopy("copy (\(query)) to stdout (\(unescaped: options))", expecting: PGRES_COPY_OUT, "COPY TO STDOUT")
        var buffer: UnsafeMutablePointer<CChar>?
        var bodyError: Error?
        while true {
            let length = PQgetCopyData(handle, &buffer, 0)
            if length > 0, let chunk = buffer {
                if bodyError == nil {
                    do { try body(UnsafeRawBufferPointer(start: chunk, count: Int(length))) } catch { bodyError = error }
                }
                PQfreemem(chunk)
                continue
            }
            if length == -2 { throw failure(.copy) }
            break
        }
        let copied = try finishCopy()
        if let bodyError { throw bodyError }
        return copied
    }

    // MARK: LISTEN / NOTIFY

    public func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN \(identifier: channel)")
    }

    /// Waits up to `timeout` seconds for notifications; returns those received (maybe none).
    /// Throws `.connection` if the connection is lost meanwhile (a wait must not hide a dead listener).
    public func waitForNotifications(timeout: Double) throws(PostgresError) -> [PostgresNotification] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64((max(0, min(timeout, 86_400)) * 1000).rounded(.up))))
        while true {
            // Input that is not a notification (a server message, half a packet) wakes poll too:
            // keep waiting until a notification arrives or the time is up.
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { throw failure(.connection) }
            let received = drainNotifications()
            if !received.isEmpty { return received }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return [] }
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw failure(.connection) }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = remaining.components.seconds * 1000 + (remaining.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            if poll(&poller, 1, Int32(clamping: milliseconds)) < 0 {
                // A signal (SIGTERM for a clean stop) ends the wait early so the caller can look at it.
                if errno == EINTR { return [] }
                throw failure(.connection)
            }
        }
    }

    private func drainNotifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notice = PQnotifies(handle) {
            received.append(PostgresNotification(channel: String(cString: notice.pointee.relname),
                                                 payload: String(cString: notice.pointee.extra),
                                                 processID: notice.pointee.be_pid))
            PQfreemem(notice)
        }
        return received
    }

    // MARK: Quoting

    /// A safely quoted string literal (libpq's PQescapeLiteral), for statements that take no
    /// parameters such as COPY; nil becomes NULL. Quoted on the client, no round trip.
    public func quoteLiteral(_ value: String?) -> String {
        guard let value else { return "NULL" }
        guard let escaped = PQescapeLiteral(handle, value, value.utf8.count) else { return "NULL" }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    /// A safely double-quoted identifier (libpq's PQescapeIdentifier).
    public func quoteIdentifier(_ name: String) -> String {
        guard let escaped = PQescapeIdentifier(handle, name, name.utf8.count) else { return "\"\"" }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    // MARK: Results and errors

    private func consume(_ result: OpaquePointer?, sql: String, keepDraining: Bool = true) throws(PostgresError) -> QueryResult {
        guard let result else { throw failure(.query) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // The server is now waiting for (or sending) COPY data; end that, or the connection is stuck.
            endCopy(status)
            drainResults()
            throw PostgresError(kind: .copy, message: status == PGRES_COPY_IN
                ? "the statement starts a COPY FROM STDIN, which only copyIn can feed"
                : "the statement starts a COPY TO STDOUT, which only copyOut can read")
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let columnCount = Int(PQnfields(result))
            let rowCount = Int(PQntuples(result))
            let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
            var rows: [PostgresRow] = []
            rows.reserveCapacity(rowCount)
            for row in 0..<Int32(rowCount) {
                rows.append(PostgresRow(columns: columns, values: (0..<Int32(columnCount)).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                }, query: sql))
            }
            return QueryResult(columns: columns, rows: rows, affectedRows: Int(String(cString: PQcmdTuples(result))) ?? 0)
        default:
            let error = resultError(result)
            if keepDraining { drainResults() }
            throw error
        }
    }

    private func resultError(_ result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let state = field("C")
        let message = field("M") ?? Self.firstLine(String(cString: PQresultErrorMessage(result)))
        // A FATAL error ends the session (a server shutting down, a failover) even before libpq has
        // read the end of the connection, as in pipeline mode, where a result comes as soon as it is read.
        let lost = PQstatus(handle) != CONNECTION_OK || field("V") == "FATAL" || field("V") == "PANIC"
        let kind: PostgresError.Kind = state == "55P03" ? .lockNotAvailable : lost ? .connection : .query
        let said = lost ? "lost the connection to PostgreSQL at \(endpoint): \(message.trimmingCharacters(in: ["."]))" : message
        var error = PostgresError(kind: kind, sqlState: state, message: credentials.scrub(said),
                                  detail: field("D").map(credentials.scrub), hint: field("H").map(credentials.scrub))
        error.connectionLost = lost
        return error
    }

    /// Reads and frees the remaining results of the last command. A COPY among them is ended first:
    /// in COPY state libpq hands out the same COPY result forever.
    private func drainResults() {
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_COPY_BOTH { return }  // replication only; nothing to drain it with
            endCopy(status)
        }
    }

    /// Ends a COPY the server started that nobody will stream: aborts a COPY IN, discards a COPY OUT.
    private func endCopy(_ status: ExecStatusType) {
        if status == PGRES_COPY_IN {
            PQputCopyEnd(handle, "COPY FROM STDIN abandoned by the client")
        } else if status == PGRES_COPY_OUT {
            var buffer: UnsafeMutablePointer<CChar>?
            while true {
                let length = PQgetCopyData(handle, &buffer, 0)
                if let chunk = buffer {
                    PQfreemem(chunk)
                    buffer = nil
                }
                if length < 0 { break }
            }
        }
    }

    private func failure(_ kind: PostgresError.Kind) -> PostgresError {
        let reason = Self.firstLine(String(cString: PQerrorMessage(handle)))
        let lost = PQstatus(handle) != CONNECTION_OK
        var error = PostgresError(kind: lost ? .connection : kind,
                                  message: credentials.scrub(
                                    lost ? "lost the connection to PostgreSQL at \(endpoint): \(reason)" : reason))
        error.connectionLost = lost
        return error
    }

    /// `h1:p1, h2:p2` when the connection string names several hosts (a primary and its standbys),
    /// nil for one host: the message of a failed connection names every host it tried.
    private static func configuredHosts(_ handle: OpaquePointer) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let hosts = (values["host"] ?? values["hostaddr"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
        guard hosts.count > 1 else { return nil }
        let ports = (values["port"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
        return hosts.indices.map { index in
            let port = ports.count == hosts.count ? ports[index] : ports.first ?? "5432"
            return "\(hosts[index]):\(port.isEmpty ? "5432" : port)"
        }.joined(separator: ", ")
    }

    private static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}

/// Sends data for an ongoing `COPY ... FROM STDIN`.
public struct CopyInSender {
    fileprivate let handle: OpaquePointer

    public func send(_ bytes: [UInt8]) throws(PostgresError) {
        let status = bytes.withUnsafeBytes { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        guard status == 1 else {
            var error = PostgresError(kind: .copy, message: String(cString: PQerrorMessage(handle)))
            error.connectionLost = PQstatus(handle) != CONNECTION_OK
            throw error
        }
    }
}

private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

private func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let duplicates = strings.map { $0.map { strdup($0) } ?? nil }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
