// The shared test helpers (CruBatchTestSupport) are visible to every file of this target, as if
// declared here: its files need no import of their own.
import CruBatchTestSupport
import PostgresClient

extension TestDatabase {
    /// Rows per data table, to prove a command changed nothing.
    func tableCounts() throws -> [String: Int] {
        let connection = try connect()
        var counts: [String: Int] = [:]
        for table in ["campuses", "ministries", "people", "person_ministries", "ministry_teams", "team_leaders",
                      "community_groups", "group_leaders", "memberships", "events", "event_ministries",
                      "summer_missions", "resources", "resource_topics", "notifications", "ride_offers", "ride_requests",
                      "ride_pairings"] {
            counts[table] = try connection.query("select count(*) from \(identifier: table)").scalar(Int.self)
        }
        return counts
    }
}
