import Foundation
import PostgresClient

/// A database of its own for one test, on the server scripts/test started, dropped when the object goes.
public final class TestDatabase: Sendable {
    public let name: String
    public let url: String

    /// A database with crubatch's schema: a clone of a template that `crubatch migrate` built.
    public convenience init() throws {
        try self.init(template: MigratedTemplate.name())
    }

    /// A database with crubatch's schema and `fixtures/<fixture>` imported by the binary: a clone of
    /// a template this test process imported it into once.
    public convenience init(importing fixture: String) throws {
        try self.init(template: ImportedTemplate.name(for: fixture))
    }

    /// A database with nothing in it, not even crubatch's schema.
    public static func empty() throws -> TestDatabase {
        try TestDatabase(template: nil)
    }

    private init(template: String?) throws {
        let server = try Self.connect()
        name = uniqueName("crubatch_test")
        let clause: SQLFragment = template.map { " template \(identifier: $0)" } ?? ""
        try server.execute("create database \(identifier: name)\(unescaped: clause)")
        url = try Self.url(for: name)
    }

    deinit {
        if let server = try? Self.connect() {
            try? server.execute("drop database if exists \(identifier: name) with (force)")
        }
    }

    /// A new session on this database.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(url, applicationName: Self.applicationName)
    }

    /// A count from one query (`select count(*) from ...`).
    public func count(_ query: PostgresQuery) throws -> Int {
        try connect().query(query).scalar(Int.self)
    }

    /// Runs the crubatch binary against this database to its end.
    public func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try CommandResult.run(arguments, environment: ["DATABASE_URL": url].merging(environment) { $1 })
    }

    /// Starts the crubatch binary against this database without waiting for it.
    public func start(_ arguments: [String]) throws -> BackgroundCommand {
        try BackgroundCommand(arguments, environment: ["DATABASE_URL": url])
    }

    /// The name the tests' own sessions carry, so that they never count as the binary's (`crubatch`).
    private static let applicationName = "crubatch-tests"

    /// The test server's URL (`TestEnvironment.adminURL()`), for tests of the client itself.
    public static func url() throws -> String { try TestEnvironment.adminURL() }

    /// A session on the test server's own database, not a clone: for tests of the client itself.
    public static func connect() throws -> PostgresConnection {
        try PostgresConnection(url(), applicationName: applicationName)
    }

    /// The URL of `database` on the test server.
    public static func url(for database: String) throws -> String {
        let admin = try TestEnvironment.adminURL()
        guard let slash = admin.range(of: "/", options: .backwards), admin[..<slash.lowerBound].hasSuffix("//") == false else {
            throw TestSetupError("CRUBATCH_TEST_DATABASE_URL must end with /DATABASE")
        }
        return String(admin[..<slash.lowerBound]) + "/" + database
    }
}

/// The database every `TestDatabase()` is cloned from: built once per schema by running `crubatch
/// migrate` on a new database, named after the migrations' checksums so that every test process
/// (and every later run) with the same schema shares it.
private enum MigratedTemplate {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: String?

    static func name() throws -> String {
        try lock.withLock {
            if let built { return built }
            let name = try build()
            built = name
            return name
        }
    }

    private static func build() throws -> String {
        let candidate = try TestDatabase.empty()
        let migrate = try candidate.run(["migrate"])
        guard migrate.status == 0 else { throw TestSetupError("crubatch migrate failed: \(migrate.stderr)") }
        let checksums = try candidate.connect()
            .query("select string_agg(checksum, '' order by version) from schema_migrations").scalar(String.self)
        let name = "crubatch_template_\(stableHash(checksums))"
        let server = try TestDatabase.connect()
        try server.query("select pg_advisory_lock(7331)")
        defer { _ = try? server.query("select pg_advisory_unlock(7331)") }
        if try server.query("select 1 from pg_database where datname = \(name)").rows.isEmpty {
            try server.execute("alter database \(identifier: candidate.name) rename to \(identifier: name)")
        }
        return name
    }

    /// A short hash that is the same in every process (String.hashValue is seeded per process).
    private static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The databases `TestDatabase(importing:)` clones: each fixture imported by the binary once per
/// test process, as a test would (`crubatch import --dir`), into a database of its own that nothing
/// connects to again. Cloning it takes a fraction of the import's time; the clone holds the same
/// rows, sequences and queued messages.
private enum ImportedTemplate {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: TestDatabase] = [:]

    static func name(for fixture: String) throws -> String {
        try lock.withLock {
            if let template = built[fixture] { return template.name }
            let template = try TestDatabase()
            let load = try template.run(["import", "--dir", TestEnvironment.fixture(fixture)])
            guard load.status == 0 else { throw TestSetupError("importing fixtures/\(fixture) failed: \(load.stderr)") }
            built[fixture] = template
            return template.name
        }
    }
}

/// A database holding all of fixtures/central-coast, shared by tests that only read it.
public enum LoadedDatabase {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: TestDatabase?

    /// The shared database, loaded by the first test that asks.
    public static func get() throws -> TestDatabase {
        try lock.withLock {
            if let shared { return shared }
            let database = try TestDatabase(importing: "central-coast")
            shared = database
            return database
        }
    }
}

extension TestDatabase {
    /// A digest of every row of `tables` (each row's whole text, `updated_at` and ids included), to
    /// show that a command left them exactly as they were.
    public func fingerprint(_ tables: [String]) throws -> String {
        let digests = tables.map { table -> SQLFragment in
            "(select coalesce(md5(string_agg(t::text, '|' order by t::text)), '') from \(identifier: table) t)"
        }
        return try connect().query("select md5(\(unescaped: SQLFragment(joining: digests, separator: " || ")))").scalar(String.self)
    }
}
