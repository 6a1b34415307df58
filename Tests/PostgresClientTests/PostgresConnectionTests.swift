import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("PostgresConnection against a real server")
struct PostgresConnectionTests {
    @Test("parameters round-trip: NULL, unicode and quotes")
    func parameters() throws {
        let db = try TestDatabase.connect()
        let values: [String?] = [nil, "Zoë 😀 日本語", "O'Brien said \"hi\"; drop table x; --", "41"]
        let result = try db.query("""
            select \(values[0])::text as a, \(values[1])::text as b, \(values[2])::text as c, \(values[3])::int + 1 as d
            """)
        #expect(result.columns == ["a", "b", "c", "d"])
        #expect(result.rows.count == 1)
        #expect(result.texts[0] == [nil, values[1], values[2], "42"])
        #expect(try result.rows[0].decode(String?.self, "c") == values[2])
        #expect(try result.rows[0].decode(Int.self, "d") == 42)
        #expect(throws: PostgresError.self) { try result.rows[0].decode(String.self, "nope") }
        #expect(throws: PostgresError.self) { try result.rows[0].decode(String.self, "a") }
        #expect(throws: PostgresError.self) { try result.rows[0].decode(Int.self, "b") }
        #expect(try result.scalar(String?.self) == nil, "the first cell is NULL")

        let table = uniqueName("people")
        try db.execute("create temp table \(identifier: table) (id serial primary key, name text, note text)")
        let nothing: String? = nil
        let inserted = try db.query("""
            insert into \(identifier: table) (name, note)
            values (\("Ann"), \(nothing)), (\("Zoë"), \("it's")), (\("Bob \"B\""), \("x,y"))
            """)
        #expect(inserted.affectedRows == 3)
        let rows = try db.query("select name, note, note is null as missing from \(identifier: table) order by id")
        #expect(rows.texts == [["Ann", nil, "t"], ["Zoë", "it's", "f"], ["Bob \"B\"", "x,y", "f"]])
        #expect(try db.query("select count(*) from \(identifier: table) where name = \("Zoë")").text == "1")
    }

    @Test("execute(_:while:) runs its statement on the server while the work runs here, waits for it, and throws its failure after the work")
    func overlappingWork() throws {
        let db = try TestDatabase.connect(), observer = try TestDatabase.connect()
        let pid = try db.query("select pg_backend_pid()").scalar(Int.self)
        let table = uniqueName("overlap")
        try db.execute("create temp table \(identifier: table) (n int)")
        let busy = try db.execute("insert into \(identifier: table) select 1 from pg_sleep(0.5)") {
            waitUntil(timeout: 5) {
                (try? observer.query("""
                    select count(*) from pg_stat_activity where pid = \(pid) and state = 'active' and query like 'insert into%'
                    """).scalar(Int.self)) == 1
            }
        }
        #expect(busy, "the statement was not running on the server while the work ran")
        #expect(try db.query("select count(*) from \(identifier: table)").scalar(Int.self) == 1)

        var ran = false
        #expect(throws: PostgresError.self) { try db.execute("select 1 / 0") { ran = true } }
        #expect(ran, "the work runs even when the statement fails")
        #expect(try db.query("select 2").scalar(Int.self) == 2)

        struct WorkFailed: Error {}
        #expect(throws: WorkFailed.self) { try db.execute("insert into \(identifier: table) values (2)") { throw WorkFailed() } }
        #expect(try db.query("select count(*) from \(identifier: table)").scalar(Int.self) == 2, "the statement ran to its end")
    }

    @Test("integer arrays decode from array_agg, empty ones too")
    func integerArrays() throws {
        let db = try TestDatabase.connect()
        let row = try db.query("""
            select array_agg(x order by x), '{}'::int[], array[-3, 40000000000]::bigint[], 'abc'
            from generate_series(1, 3) x
            """).rows[0]
        #expect(try row.decode([Int].self, 0) == [1, 2, 3])
        #expect(try row.decode([Int].self, 1) == [])
        #expect(try row.decode([Int].self, 2) == [-3, 40_000_000_000])
        #expect(throws: PostgresError.self) { try row.decode([Int].self, 3) }
    }

    @Test("queryPrepared prepares a text once and reuses it with new values, also after a failed run")
    func preparedStatements() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("sent")
        try db.execute("create temp table \(identifier: table) (id int primary key, note text)")
        for (id, note) in [(1, "Zoë"), (2, nil), (3, "O'Brien")] as [(Int, String?)] {
            let inserted = try db.queryPrepared("insert into \(identifier: table) values (\(id), \(note)) returning id")
            #expect(inserted.text == String(id))
        }
        let prepared = try db.query("""
            select count(*) from pg_prepared_statements where statement like \("%insert into " + table + "%")
            """)
        #expect(prepared.text == "1", "one server-side statement for the three runs")

        // A run that fails (a duplicate key) aborts its transaction; the statement outlives the rollback.
        try db.execute("BEGIN")
        let duplicate = try postgresError { try db.queryPrepared("insert into \(identifier: table) values (\(1), \("again")) returning id") }
        #expect(duplicate.sqlState == "23505")
        try db.execute("ROLLBACK")
        #expect(try db.queryPrepared("insert into \(identifier: table) values (\(4), \("after")) returning id").text == "4")
        #expect(try db.query("select string_agg(id || ':' || coalesce(note, '-'), ',' order by id) from \(identifier: table)").text
                == "1:Zoë,2:-,3:O'Brien,4:after")

        // Statements the server dropped (DEALLOCATE ALL, as a pooler's DISCARD ALL does) are prepared again.
        try db.execute("deallocate all")
        #expect(try db.queryPrepared("insert into \(identifier: table) values (\(5), \("again")) returning id").text == "5")
        #expect(try db.queryPrepared("select count(*) from \(identifier: table) where id > \(0)").text == "5")

        // A text the server cannot prepare is an error each time, never a name that was not prepared.
        for _ in 1...2 {
            let error = try postgresError { try db.queryPrepared("selec \(1)") }
            #expect(error.sqlState == "42601")
        }
    }

    @Test("pipeline runs its statements in order in one round trip, COMMIT and BEGIN too, and stops at the first failure")
    func pipeline() throws {
        let db = try TestDatabase.connect(), observer = try TestDatabase.connect()
        let table = uniqueName("pipelined")
        try db.execute("create table \(identifier: table) (id int primary key, note text)")
        defer { try? observer.execute("drop table if exists \(identifier: table)") }
        func insert(_ id: Int, _ note: String?) -> PostgresQuery {
            "insert into \(identifier: table) values (\(id), \(note)) returning id"
        }
        let count: PostgresQuery = "select count(*) from \(identifier: table)"

        // Inside a transaction: what comes before COMMIT is committed, what follows BEGIN is not yet.
        try db.execute("BEGIN")
        let results = try db.pipeline([insert(1, "Zoë"), "COMMIT", "BEGIN", insert(2, nil), count])
        #expect(results.map(\.text) == ["1", nil, nil, "2", "2"])
        #expect(try observer.query(count).text == "1", "the first insert is committed, the second not yet")
        try db.execute("COMMIT")
        #expect(try observer.query(count).text == "2")

        // The same texts again reuse their server-side statements.
        try db.pipeline([insert(3, "O'Brien"), insert(4, "again")])
        let prepared = try db.query("""
            select count(*) from pg_prepared_statements where statement like \("%insert into " + table + "%")
            """)
        #expect(prepared.text == "1", "one server-side statement for five inserts")

        // A failure stops the pipeline: nothing after it runs, its error is thrown, the connection goes on.
        let duplicate = try postgresError { try db.pipeline([insert(5, "five"), insert(1, "again"), insert(6, "six")]) }
        #expect(duplicate.sqlState == "23505")
        #expect(try db.query("select string_agg(id::text, ',' order by id) from \(identifier: table)").text == "1,2,3,4",
                "outside a transaction the pipeline is one: the insert before the failure is undone, the one after never ran")
        try db.execute("BEGIN")
        let aborted = try postgresError { try db.pipeline([insert(7, "seven"), "selec 1", "COMMIT"]) }
        #expect(aborted.sqlState == "42601")
        try db.execute("ROLLBACK")
        #expect(try db.query(count).text == "4", "a failure inside a transaction leaves it to be rolled back")
        #expect(try db.pipeline(["select 41 + 1"]).map(\.text) == ["42"])
    }

    @Test("a syntax error carries SQLSTATE 42601 and leaves the connection usable")
    func syntaxError() throws {
        let db = try TestDatabase.connect()
        let error = try postgresError { try db.query("selec 1") }
        #expect(error.kind == .query)
        #expect(error.sqlState == "42601")
        #expect(error.message.contains("syntax error"))
        #expect(error.description.contains("SQLSTATE 42601"))
        #expect(try db.query("select 1").text == "1")
    }

    @Test("a unique violation carries SQLSTATE 23505 and the key in its detail")
    func uniqueViolation() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("emails")
        try db.execute("create temp table \(identifier: table) (email text primary key)")
        try db.query("insert into \(identifier: table) values (\("ann@example.org"))")
        let error = try postgresError { try db.query("insert into \(identifier: table) values (\("ann@example.org"))") }
        #expect(error.kind == .query)
        #expect(error.sqlState == "23505")
        #expect(error.detail?.contains("ann@example.org") == true)
        #expect(try db.query("select count(*) from \(identifier: table)").text == "1")
    }

    @Test("transaction commits when the body returns and rolls back when it throws")
    func transactions() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("tx")
        try db.execute("create temp table \(identifier: table) (n int)")

        let value = try db.transaction {
            try db.query("insert into \(identifier: table) values (1)")
            return "done"
        }
        #expect(value == "done")
        #expect(try db.query("select count(*) from \(identifier: table)").text == "1")

        #expect(throws: Planned.self) {
            try db.transaction {
                try db.query("insert into \(identifier: table) values (2)")
                throw Planned()
            }
        }
        #expect(try db.query("select count(*) from \(identifier: table)").text == "1")

        // A failed statement inside rolls back too, and the session is not left in an aborted transaction.
        let error = try postgresError {
            try db.transaction {
                try db.query("insert into \(identifier: table) values (3)")
                try db.query("insert into \(identifier: table) values ('not a number')")
            }
        }
        #expect(error.sqlState == "22P02")
        #expect(try db.query("select array_agg(n order by n)::text from \(identifier: table)").text == "{1}")
        let pid = try db.query("select pg_backend_pid()").text
        let observer = try TestDatabase.connect()
        #expect(try observer.query("select state from pg_stat_activity where pid = \(pid)::int").text == "idle",
                "the session is not left inside a transaction")
    }

    @Test("a second session cannot take an advisory lock the first holds, until it is released")
    func advisoryLocks() throws {
        let first = try TestDatabase.connect()
        let second = try TestDatabase.connect()
        let key = Int64.random(in: 1...Int64.max)
        #expect(try first.tryAdvisoryLock(key))
        #expect(try second.tryAdvisoryLock(key) == false)
        try first.advisoryUnlock(key)
        #expect(try second.tryAdvisoryLock(key))
        #expect(try first.tryAdvisoryLock(key) == false)
        try second.advisoryUnlock(key)

        let negative = -key
        try first.advisoryLock(negative)
        #expect(try second.tryAdvisoryLock(negative) == false)
        try first.advisoryUnlock(negative)
        #expect(try second.tryAdvisoryLock(negative))
        try second.advisoryUnlock(negative)
    }

    @Test("copyIn streams 10,000 CSV rows")
    func copyIn() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("copy_in")
        try db.execute("create temp table \(identifier: table) (id int primary key, name text, note text)")
        let count = try db.copyIn("COPY \(identifier: table) FROM STDIN (FORMAT csv)") { sender in
            var chunk: [UInt8] = []
            for id in 1...10_000 {
                chunk += Array("\(id),\"Name, \"\"\(id)\"\"\",Zoë \(id)\n".utf8)
                if id.isMultiple(of: 1_000) {
                    try sender.send(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        }
        #expect(count == 10_000)
        #expect(try db.query("select count(*), sum(id) from \(identifier: table)").texts == [["10000", "50005000"]])
        #expect(try db.query("select name, note from \(identifier: table) where id = 7777").texts == [["Name, \"7777\"", "Zoë 7777"]])
    }

    @Test("copyIn whose body throws copies nothing and leaves the connection usable")
    func copyInAborted() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("copy_abort")
        try db.execute("create temp table \(identifier: table) (id int, name text)")
        #expect(throws: Planned.self) {
            try db.copyIn("COPY \(identifier: table) FROM STDIN (FORMAT csv)") { sender in
                try sender.send(Array("1,Ann\n2,Bob\n".utf8))
                throw Planned()
            }
        }
        #expect(try db.query("select count(*) from \(identifier: table)").text == "0")
        let again = try db.copyIn("COPY \(identifier: table) FROM STDIN (FORMAT csv)") { sender in
            try sender.send(Array("3,Cy\n".utf8))
        }
        #expect(again == 1)
        #expect(try db.query("select name from \(identifier: table)").texts == [["Cy"]])
    }

    @Test("copyIn of bad data reports the server's error and leaves the connection usable")
    func copyInBadData() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("copy_bad")
        try db.execute("create temp table \(identifier: table) (id int, name text)")
        let error = try postgresError {
            try db.copyIn("COPY \(identifier: table) FROM STDIN (FORMAT csv)") { sender in
                try sender.send(Array("1,Ann\nseven,Bob\n".utf8))
            }
        }
        #expect(error.sqlState == "22P02")
        #expect(try db.query("select count(*) from \(identifier: table)").text == "0")

        let notCopy = try postgresError { try db.copyIn("select 1") { _ in } }
        #expect(notCopy.kind == .copy)
        #expect(try db.query("select 2").text == "2")
    }

    @Test("a COPY in the wrong direction, or through query/execute, fails fast and leaves the connection usable",
          .timeLimit(.minutes(1)))
    func copyWrongDirection() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("copy_dir")
        try db.execute("create temp table \(identifier: table) (id int)")
        try db.query("insert into \(identifier: table) select generate_series(1, 100)")

        let attempts: [(String, () throws -> Void)] = [
            ("copyIn of TO STDOUT", { try db.copyIn("COPY \(identifier: table) TO STDOUT") { _ in } }),
            ("query of TO STDOUT", { try db.query("COPY \(identifier: table) TO STDOUT") }),
            ("execute of FROM STDIN", { try db.execute("COPY \(identifier: table) FROM STDIN") }),
        ]
        for (name, attempt) in attempts {
            let error = try postgresError(attempt)
            #expect(error.kind == .copy, "\(name): \(error)")
            #expect(try db.query("select count(*) from \(identifier: table)").text == "100", "\(name) left the connection unusable")
        }
    }

    @Test("settings in the connection URL are not overridden by the client's defaults")
    func urlParametersWin() throws {
        let base = try TestDatabase.url()
        let url = base + (base.contains("?") ? "&" : "?")
            + "application_name=from-url&options=-c%20statement_timeout%3D4321&connect_timeout=7"
        let db = try PostgresConnection(url)
        #expect(try db.query("select current_setting('application_name')").text == "from-url")
        #expect(try db.query("select current_setting('statement_timeout')").text == "4321ms")
        #expect(try db.query("select current_setting('client_encoding')").text == "UTF8")

        let plain = try PostgresConnection(base, applicationName: "given-name")
        #expect(try plain.query("select current_setting('application_name')").text == "given-name")
        #expect(try plain.query("select current_setting('client_min_messages')").text == "warning")
    }

    @Test("a connection the server ends is reported as a connection error")
    func terminatedConnection() throws {
        let listener = try TestDatabase.connect()
        let observer = try TestDatabase.connect()
        let channel = uniqueName("crubatch_test")
        try listener.listen(channel)
        let pid = try listener.query("select pg_backend_pid()").text
        #expect(try observer.query("select pg_terminate_backend(\(pid)::int)").text == "t")
        let error = try postgresError { _ = try listener.waitForNotifications(timeout: 5) }
        #expect(error.kind == .connection)
        let after = try postgresError { try listener.query("select 1") }
        #expect(after.kind == .connection)
    }

    @Test("a pipeline whose connection the server ends says the connection is lost, as a failover does")
    func terminatedPipeline() throws {
        let db = try TestDatabase.connect()
        try db.execute("BEGIN")
        // The server ends the session (57P01, FATAL) while the pipeline's results are read: libpq
        // hands that error out before it has read the end of the connection.
        let error = try postgresError {
            try db.pipeline(["select pg_terminate_backend(pg_backend_pid())", "COMMIT", "BEGIN", "select 1"])
        }
        #expect(error.sqlState == "57P01")
        #expect(error.kind == .connection)
        #expect(error.primaryLost, "a writer reconnects on such an error")
        let after = try postgresError { try db.query("select 1") }
        #expect(after.kind == .connection)
    }

    @Test("copyOut inlines its binds in one scan: a bind holding $1, quotes or a backslash stays that value")
    func copyOutBindsAreValues() throws {
        let db = try TestDatabase.connect()
        let values = ["calpoly", "fall$1", "O'Brien \\ \"x\" $2$3"]
        var output: [UInt8] = []
        try db.copyOut("select \(values[0])::text, \(values[1])::text, \(values[2])::text, length(\(values[1])::text)",
                       options: "format csv") { output += $0 }
        #expect(String(decoding: output, as: UTF8.self) == "calpoly,fall$1,\"O'Brien \\ \"\"x\"\" $2$3\",6\n")
    }

    @Test("copyOut streams every row back")
    func copyOut() throws {
        let db = try TestDatabase.connect()
        let table = uniqueName("copy_out")
        try db.execute("create temp table \(identifier: table) (id int, name text)")
        try db.query("insert into \(identifier: table) select n, 'name ' || n || ', \"q\"' from generate_series(1, 5000) n")
        var output: [UInt8] = []
        let count = try db.copyOut("select id, name from \(identifier: table) order by id", options: "format csv") { chunk in
            output += chunk
        }
        #expect(count == 5_000)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5_001)
        #expect(lines.last == "")
        #expect(lines.first == "1,\"name 1, \"\"q\"\"\"")
        #expect(lines[4_999] == "5000,\"name 5000, \"\"q\"\"\"")

        // A body that throws stops the copy but the error comes out and the connection still works.
        var seen = 0
        #expect(throws: Planned.self) {
            try db.copyOut("select * from \(identifier: table)", options: "format text") { _ in
                seen += 1
                if seen == 10 { throw Planned() }
            }
        }
        #expect(seen == 10)
        #expect(try db.query("select count(*) from \(identifier: table)").text == "5000")
    }

    @Test("LISTEN gets a NOTIFY from another session with its payload")
    func notifications() throws {
        let listener = try TestDatabase.connect()
        let sender = try TestDatabase.connect()
        let channel = uniqueName("crubatch_test")
        try listener.listen(channel)
        let pidText = try sender.query("select pg_backend_pid()").text
        let senderPID = try #require(pidText.flatMap { Int32($0) })
        try sender.query("select pg_notify(\(channel), \("place:42 Zoë"))")

        let received = try listener.waitForNotifications(timeout: 5)
        #expect(received.count == 1)
        #expect(received.first?.channel == channel)
        #expect(received.first?.payload == "place:42 Zoë")
        #expect(received.first?.processID == senderPID)

        let start = Date()
        let none = try listener.waitForNotifications(timeout: 0.3)
        let elapsed = Date().timeIntervalSince(start)
        #expect(none.isEmpty)
        #expect(elapsed >= 0.25 && elapsed < 3, "waited \(elapsed)s")

        // Notifications sent while nobody waits are kept until the next wait.
        try sender.query("select pg_notify(\(channel), 'one')")
        try sender.query("select pg_notify(\(channel), 'two')")
        var payloads: [String] = []
        try waitUntil(timeout: 5) {
            payloads += try listener.waitForNotifications(timeout: 1).map(\.payload)
            return payloads.count >= 2
        }
        #expect(payloads == ["one", "two"])
    }

    @Test("a refused connection names host and port and never the password")
    func connectionRefused() throws {
        for url in ["postgresql://bob:s3cret@127.0.0.1:1/x", "host=127.0.0.1 port=1 user=bob password=s3cret dbname=x"] {
            let error = try postgresError { _ = try PostgresConnection(url) }
            #expect(error.kind == .connection)
            #expect(error.message.contains("127.0.0.1"), "\(error.message)")
            #expect(error.message.contains("127.0.0.1:1") || error.message.contains("port 1 "), "\(error.message)")
            #expect(!error.message.contains("s3cret"))
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test("a connection string libpq cannot parse is echoed without its password, decoded or encoded", arguments: [
        "postgresql://u:S3cret%40PW@[bad", "postgresql://u:S3cret%40PW@db:port/x",
        "host=db password=S3cret@PW nonsense", "postgresql://db/x?password=S3cret%40PW&bogus_option=1",
    ])
    func unparseableConnectionString(url: String) throws {
        let error = try postgresError { _ = try PostgresConnection(url) }
        #expect(error.kind == .connection)
        for form in ["S3cret%40PW", "S3cret@PW"] {
            #expect(!error.description.contains(form), "\(error.description)")
        }
    }

    @Test("the server checks every second that the client is still there")
    func clientConnectionCheck() throws {
        let db = try TestDatabase.connect()
        #expect(try db.query("select current_setting('client_connection_check_interval')").text == "1s")
    }

    @Test("endpoint names where the connection went")
    func endpoint() throws {
        let db = try TestDatabase.connect()
        let url = try TestDatabase.url()
        let components = try #require(URLComponents(string: url))
        if let host = components.host, let port = components.port {
            #expect(db.endpoint == "\(host):\(port)")
        }
        #expect(try db.query("select current_setting('application_name')").text == "crubatch-tests")
        #expect(db.quoteIdentifier("we\"ird name") == "\"we\"\"ird name\"")
    }
}

@Suite("literal quoting")
struct QuoteLiteralTests {
    @Test("quoteLiteral round-trips quotes, backslashes and unicode through the server; nil is NULL")
    func roundTrip() throws {
        let connection = try PostgresConnection(try TestDatabase.url())
        for value in ["plain", "O'Brien", #"back\slash"#, "Zoë 日本", ""] {
            let select = PostgresQuery(unsafeSQL: "select " + connection.quoteLiteral(value))
            #expect(try connection.query(select).text == value)
        }
        let null = PostgresQuery(unsafeSQL: "select \(connection.quoteLiteral(nil)) is null")
        #expect(try connection.query(null).text == "t")
    }
}
