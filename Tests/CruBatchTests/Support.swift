import CruBatch
// The shared test helpers (CruBatchTestSupport) are visible to every file of this target, as if
// declared here: its files need no import of their own.
@_exported import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Where the tests find the repository, the built `crubatch` binary and the servers scripts/test started.
enum TestEnvironment {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func fixture(_ path: String) -> String { root.appendingPathComponent("fixtures/" + path).path }

    /// The server URL from scripts/test; a missing one is a failure, not a skip.
    static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["CRUBATCH_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestSetupError("CRUBATCH_TEST_DATABASE_URL is not set: run the tests with scripts/test")
        }
        return url
    }

    /// The `crubatch` executable built next to the test bundle.
    static let binary: String = {
        var candidates: [URL] = []
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            var folder = directory
            for _ in 0..<4 {
                let path = folder.appendingPathComponent("crubatch").path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: path) {
                    return path
                }
                folder.deleteLastPathComponent()
            }
        }
        return root.appendingPathComponent(".build/debug/crubatch").path
    }()
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A database of its own for one test, cloned from a migrated template, dropped at the end.
final class TestDatabase: @unchecked Sendable {
    let name: String
    let url: String

    private static let templateLock = NSLock()
    nonisolated(unsafe) private static var templateName: String?

    init() throws {
        let admin = try PostgresConnection(try TestEnvironment.adminURL())
        let template = try Self.template(admin)
        name = "crubatch_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try admin.execute("create database \(name) template \(template)")
        url = try Self.url(for: name)
    }

    deinit {
        if let admin = try? PostgresConnection(try TestEnvironment.adminURL()) {
            try? admin.execute("drop database if exists \(name) with (force)")
        }
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(url) }

    /// A count from one query (`select count(*) from ...`).
    func count(_ query: PostgresQuery) throws -> Int {
        try connect().query(query).scalar(Int.self)
    }

    /// Rows per data table, to prove a command changed nothing.
    func tableCounts() throws -> [String: Int] {
        let connection = try connect()
        var counts: [String: Int] = [:]
        for table in ["campuses", "ministries", "people", "person_ministries", "ministry_teams", "team_leaders",
                      "community_groups", "group_leaders", "memberships", "events", "event_ministries",
                      "summer_missions", "resources", "resource_topics", "notifications"] {
            counts[table] = try connection.query("select count(*) from \(unescaped: table)").scalar(Int.self)
        }
        return counts
    }

    /// Runs the crubatch binary against this database.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try CommandResult.run(arguments, environment: ["DATABASE_URL": url].merging(environment) { $1 })
    }

    static func url(for database: String) throws -> String {
        let admin = try TestEnvironment.adminURL()
        guard let slash = admin.range(of: "/", options: .backwards), admin[..<slash.lowerBound].hasSuffix("//") == false else {
            throw TestSetupError("CRUBATCH_TEST_DATABASE_URL must end with /DATABASE")
        }
        return String(admin[..<slash.lowerBound]) + "/" + database
    }

    /// Creates (once per schema version) a migrated database to clone.
    private static func template(_ admin: PostgresConnection) throws -> String {
        templateLock.lock()
        defer { templateLock.unlock() }
        if let templateName { return templateName }
        let version = Migration.all.map(\.checksum).joined().hashValueStable
        let name = "crubatch_template_\(version)"
        try admin.query("select pg_advisory_lock(7331)")
        defer { _ = try? admin.query("select pg_advisory_unlock(7331)") }
        if try admin.query("select 1 from pg_database where datname = \(name)").rows.isEmpty {
            try admin.execute("create database \(name)_build")
            do {
                let connection = try PostgresConnection(try url(for: "\(name)_build"))
                _ = try Migrator(connection: connection).migrate()
            }
            try admin.execute("alter database \(name)_build rename to \(name)")
        }
        templateName = name
        return name
    }
}

extension String {
    /// A short hash that is the same in every process (String.hashValue is seeded per process).
    var hashValueStable: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The outcome of running the `crubatch` binary.
struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String

    static func run(_ arguments: [String], executable: String = TestEnvironment.binary,
                    environment: [String: String] = [:]) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DATABASE_URL")
        process.environment = env.merging(environment) { $1 }
        // Files, not pipes: a full pipe would block the child, and files need no reader thread.
        return try withScratchDirectory { directory in
            let outPath = directory + "/stdout", errPath = directory + "/stderr"
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
            let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try out.close()
            try err.close()
            let outData = try Data(contentsOf: URL(fileURLWithPath: outPath))
            let errData = try Data(contentsOf: URL(fileURLWithPath: errPath))
            return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                                 stderr: String(decoding: errData, as: UTF8.self))
        }
    }
}

/// A database holding all of fixtures/central-coast, shared by tests that only read it.
enum LoadedDatabase {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: TestDatabase?

    static func get() throws -> TestDatabase {
        lock.lock()
        defer { lock.unlock() }
        if let shared { return shared }
        let database = try TestDatabase()
        let result = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")])
        guard result.status == 0 else { throw TestSetupError("loading central-coast failed: \(result.stderr)") }
        shared = database
        return database
    }
}
