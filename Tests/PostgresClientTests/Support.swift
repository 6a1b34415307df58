// The shared test helpers (CruBatchTestSupport) are visible to every file of this target, as if
// declared here: its files need no import of their own.
import CruBatchTestSupport
import PostgresClient
import Testing

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
