@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// What the code names by hand and the schema declares agree: the message kinds, the statuses a
/// message and a run may have, and the kinds that hold people.
@Suite("the code's names agree with the schema")
struct CatalogSchemaTests {
    /// The values a check constraint `column = ANY (ARRAY['a'::text, ...])` allows.
    private func allowed(_ constraint: String, in database: TestDatabase) throws -> Set<String> {
        let definition = try #require(try database.connect().query("""
            select pg_get_constraintdef(oid) from pg_constraint where conname = \(constraint)
            """).text)
        return Set(definition.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    @Test("NotificationKind.all is the notification_kinds table")
    func notificationKinds() throws {
        let database = try LoadedDatabase.get()
        let stored = try database.connect().query("select kind from notification_kinds").rows.map { try $0.decode(String.self, 0) }
        #expect(Set(NotificationKind.all.map(\.name)) == Set(stored))
        #expect(NotificationKind.all.count == stored.count)
    }

    @Test("NotificationStatus and RunStatus are the statuses their tables allow")
    func statuses() throws {
        let database = try LoadedDatabase.get()
        #expect(Set(NotificationStatus.allCases.map(\.rawValue)) == (try allowed("notifications_status_check", in: database)))
        #expect(Set(RunStatus.allCases.map(\.rawValue)) == (try allowed("import_runs_status_check", in: database)))
    }

    @Test("the kinds that hold people are those whose table is people or that name people")
    func kindsHoldingPeople() {
        #expect(Kind.holdingPeople == [.leaders, .students, .teams, .groups, .memberships, .rideOffers, .rideRequests, .attendance])
    }
}
