import Foundation
import PostgresClient
import Testing

/// The server these tests run against: `CRUBATCH_TEST_DATABASE_URL`, set by scripts/test.
enum TestDatabase {
    static let variable = "CRUBATCH_TEST_DATABASE_URL"

    /// The URL, or a failed test (never a skipped one) that says how to provide it.
    static func url() throws -> String {
        let value = ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(value, """
            \(variable) is not set: these tests need a real PostgreSQL. Run scripts/test, or start one with \
            scripts/pg start and export \(variable)=$(scripts/pg url), e.g. postgresql://postgres@127.0.0.1:54329/crubatch
            """)
    }

    static func connect() throws -> PostgresConnection {
        try PostgresConnection(url(), applicationName: "crubatch-tests")
    }
}

/// A name no other test (or concurrent run) uses: `prefix_` and 12 random hex digits.
func uniqueName(_ prefix: String) -> String {
    prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
}

/// An error a test body throws on purpose.
struct Planned: Error, Equatable {}

/// Runs `body`, expecting a `PostgresError`, and returns it.
func postgresError(_ body: () throws -> Void) throws -> PostgresError {
    do {
        try body()
    } catch let error as PostgresError {
        return error
    }
    Issue.record("expected a PostgresError, but nothing was thrown")
    throw Planned()
}
