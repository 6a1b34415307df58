import Foundation
import PostgresClient

/// The pg_auto_failover cluster scripts/test starts with `scripts/pg-ha start` (a monitor, a primary
/// and a synchronous standby): its multi-host URL in CRUBATCH_TEST_HA_URL, or, when it could not be
/// started, why not in CRUBATCH_TEST_HA_UNAVAILABLE, which the failover tests show as their skip.
public enum HACluster {
    /// Whether the cluster runs for these tests.
    public static var isAvailable: Bool { environment("CRUBATCH_TEST_HA_URL") != nil }

    /// Why the failover tests are skipped: the reason scripts/test gave, or how to start the cluster.
    public static var unavailableReason: String {
        environment("CRUBATCH_TEST_HA_UNAVAILABLE")
            ?? "no HA cluster: run scripts/test, or scripts/pg-ha start and export CRUBATCH_TEST_HA_URL=$(scripts/pg-ha url)"
    }

    /// `postgresql://postgres@h1:p1,h2:p2/DATABASE?target_session_attrs=read-write` for `database`.
    static func url(for database: String) throws -> String {
        let cluster = try TestEnvironment.required("CRUBATCH_TEST_HA_URL", unavailableReason)
        return try replacingDatabase(in: cluster, with: database)
    }

    /// The current standby alone (`scripts/pg-ha standby`), on `database`.
    public static func standbyURL(for database: String) throws -> String {
        try replacingDatabase(in: script("standby").trimmingCharacters(in: .whitespacesAndNewlines), with: database)
    }

    /// Promotes the standby and demotes the primary; returns once the cluster has a primary and a
    /// standby again.
    public static func failover() throws {
        _ = try script("failover")
    }

    private static func replacingDatabase(in url: String, with database: String) throws -> String {
        guard let hostsEnd = url.range(of: "/", range: url.range(of: "://")!.upperBound..<url.endIndex) else {
            throw TestSetupError("the HA cluster's URL names no database: \(url)")
        }
        let rest = url[hostsEnd.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        return url[..<hostsEnd.upperBound] + database + query
    }

    fileprivate static func script(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = TestEnvironment.root.appendingPathComponent("scripts/pg-ha")
        process.arguments = [command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw TestSetupError("scripts/pg-ha \(command) failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// A database of its own on the HA cluster, migrated by the binary, dropped when the object goes.
/// Every URL it gives is the cluster's multi-host one, so whatever node is primary takes it.
public final class HADatabase: Sendable {
    public let name: String
    public let url: String

    public init() throws {
        name = uniqueName("crubatch_ha")
        url = try HACluster.url(for: name)
        let server = try PostgresConnection(HACluster.url(for: "postgres"), applicationName: "crubatch-tests")
        try server.execute("create database \(identifier: name)")
        // libpq tries the hosts in order and stops at a standby that has not replayed the new
        // database yet ("does not exist"): wait until every node has it. The standby is asked for
        // anew each time, and a wait in vain says what the cluster looked like.
        var lastError = "no attempt"
        let shown = waitUntil(timeout: 60) {
            do {
                _ = try PostgresConnection(HACluster.standbyURL(for: name))
                return true
            } catch {
                lastError = "\(error)"
                return false
            }
        }
        guard shown else {
            let status = (try? HACluster.script("status")) ?? "scripts/pg-ha status failed"
            throw TestSetupError("the standby never showed database \(name): \(lastError)\n\(status)")
        }
        let migrate = try run(["migrate"])
        guard migrate.status == 0 else { throw TestSetupError("crubatch migrate on the HA cluster failed: \(migrate.stderr)") }
    }

    deinit {
        if let server = try? PostgresConnection(HACluster.url(for: "postgres"), applicationName: "crubatch-tests") {
            try? server.execute("drop database if exists \(identifier: name) with (force)")
        }
    }

    /// A new session on the current primary.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(url, applicationName: "crubatch-tests")
    }

    /// A count from one query on the current primary.
    public func count(_ query: PostgresQuery) throws -> Int {
        try connect().query(query).scalar(Int.self)
    }

    /// Runs the crubatch binary against this database to its end.
    public func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try CommandResult.run(arguments, environment: ["DATABASE_URL": url].merging(environment) { $1 })
    }

    /// Starts the crubatch binary against this database without waiting for it.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> BackgroundCommand {
        try BackgroundCommand(arguments, environment: ["DATABASE_URL": url].merging(environment) { $1 })
    }
}
