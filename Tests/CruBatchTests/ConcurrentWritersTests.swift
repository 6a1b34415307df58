@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Two writers at once, and a writer killed half-way: each test holds one writer still at a known
/// point (a table lock it waits for), runs the other beside it, and checks the data is what one
/// writer after the other would have left.
@Suite("concurrent writers and killed syncs")
struct ConcurrentWritersTests {
    private let scratch = ScratchDirectory()

    /// Waits until a crubatch session of `database` waits for a lock in a statement containing `text`.
    private func waitForBlocked(_ database: TestDatabase, statement text: String) throws -> Bool {
        try waitUntil(timeout: 20) {
            try database.count("""
                select count(*) from pg_stat_activity
                where datname = current_database() and application_name = 'crubatch'
                and wait_event_type = 'Lock' and query ilike \("%" + text + "%")
                """) > 0
        }
    }

    /// The groups file of the sample data without the group `code`.
    private func groupsWithout(_ code: String) throws -> String {
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/groups.csv"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix(code + ",") }
        return try scratch.writeFile("groups.csv", lines.joined(separator: "\n") + "\n")
    }

    /// One answer of the sample questionnaire that a sample group takes, and the group it goes to.
    private func placeableAnswer(_ database: TestDatabase) throws -> (path: String, group: String) {
        let lines = try String(contentsOfFile: TestEnvironment.fixture("get-involved/answers-small.csv"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let path = try scratch.writeFile("answer.csv", lines[0] + "\n" + lines[2] + "\n")
        let dryRun = try database.run(["place", path, "--dry-run", "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(dryRun.stdout.utf8)) as? [String: Any])
        let answer = try #require((report["answers"] as? [[String: Any]])?.first)
        let group = try #require((answer["group"] as? [String: Any])?["code"] as? String, "\(dryRun.stdout)")
        return (path, group)
    }

    @Test("import --sync beside place: a sync that would archive the group place is filling waits its turn (75)")
    func syncBesidePlace() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (answer, group) = try placeableAnswer(database)
        let sync = try groupsWithout(group)

        // place has read the groups and waits to insert the membership.
        let holder = try database.connect()
        try holder.execute("begin")
        try holder.execute("lock table memberships in exclusive mode")
        let place = try database.start(["place", answer])
        try #require(try waitForBlocked(database, statement: "memberships"), "place never reached its insert")

        // The sync either stops at once, or (when nothing keeps it out) goes on until it too waits.
        let syncing = try database.start(["import", "groups", sync, "--sync"])
        try waitUntil(timeout: 20) {
            try !syncing.isRunning || database.count("""
                select count(*) from pg_stat_activity where datname = current_database()
                and application_name = 'crubatch' and wait_event_type = 'Lock'
                """) > 1
        }
        try holder.execute("rollback")
        let archive = try syncing.finish()
        let placed = try place.finish()

        #expect(placed.status == 0, "\(placed.stderr)")
        #expect(archive.status == 75, "the sync ran while place was filling \(group): \(archive.stdout)\(archive.stderr)")
        #expect(archive.stderr.contains("place"), "\(archive.stderr)")
        #expect(try database.count("""
            select count(*) from memberships m join community_groups g on g.id = m.group_id
            where g.archived_at is not null and m.status <> 'left'
            """) == 0)
        // Run again once place is done, the sync archives the group.
        let again = try database.run(["import", "groups", sync, "--sync"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try database.count("select count(*) from community_groups where code = \(group) and archived_at is not null") == 1)
    }

    @Test("place beside an import of groups: place refuses with 75 and writes nothing")
    func placeBesideImport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (answer, _) = try placeableAnswer(database)
        let before = try database.tableCounts()
        let holder = try database.connect()
        #expect(try holder.tryAdvisoryLock(WriterLocks.importKey(.groups)))
        let place = try database.run(["place", answer, "--format", "json"])
        #expect(place.status == 75, "\(place.stderr)")
        #expect(place.stdout.contains("\"locked\""), "\(place.stdout)")
        #expect(try database.tableCounts() == before)
    }

    @Test("SIGKILL in the middle of import --sync: the database is as it was, and the next sync runs")
    func killedSync() throws {
        let database = try TestDatabase(importing: "central-coast")
        let fingerprint = """
            select md5(string_agg(format('%s|%s|%s', code, name, archived_at), ',' order by code)) from community_groups
            """
        let before = try database.connect().query(PostgresQuery(unsafeSQL: fingerprint)).scalar(String.self)
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/groups.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // The file renames its first group (the merge's UPDATE) and leaves out its last (the archive).
        let kept = lines.dropLast()
        let missing = String(try #require(lines.last?.split(separator: ",").first))
        let renamed = [kept[0], kept[1].replacingOccurrences(of: "Freshmen Men (Monday)", with: "Renamed Group")]
            + kept.dropFirst(2)
        let path = try scratch.writeFile("groups.csv", renamed.joined(separator: "\n") + "\n")

        // The sync's archive waits for the missing group's row, which this test holds.
        let holder = try database.connect()
        try holder.execute("begin")
        try holder.query("select id from community_groups where code = \(missing) for update")
        let sync = try database.start(["import", "groups", path, "--sync"])
        try #require(try waitForBlocked(database, statement: "archived_at"), "the sync never reached its archive")
        sync.killHard()
        try holder.execute("rollback")

        try #require(try waitUntil(timeout: 20) {
            try database.count("""
                select count(*) from pg_stat_activity where datname = current_database() and application_name = 'crubatch'
                """) == 0
        }, "the killed sync's session never ended")
        #expect(try database.connect().query(PostgresQuery(unsafeSQL: fingerprint)).scalar(String.self) == before)
        #expect(try database.count("select count(*) from community_groups where name = 'Renamed Group'") == 0)
        let runs = try database.run(["runs"])
        #expect(runs.stdout.split(separator: "\n").contains { $0.contains(path) && $0.contains(" killed ") }, "\(runs.stdout)")

        let again = try database.run(["import", "groups", path, "--sync"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try database.count("select count(*) from community_groups where code = \(missing) and archived_at is not null") == 1)
        #expect(try database.count("select count(*) from community_groups where name = 'Renamed Group'") == 1)
    }

    @Test("rides pair beside import ride-requests: the import waits its turn (75) and no pairing names a stale request")
    func pairBesideRequestImport() throws {
        let database = try TestDatabase(importing: "central-coast")
        // rides pair has chosen its pairings and waits to insert them.
        let holder = try database.connect()
        try holder.execute("begin")
        try holder.execute("lock table ride_pairings in exclusive mode")
        let pair = try database.start(["rides", "pair", "--event", "fall-retreat-2026"])
        try #require(try waitForBlocked(database, statement: "ride_pairings"), "rides pair never reached its insert")

        let requests = TestEnvironment.fixture("central-coast/ride-requests.csv")
        let lines = try String(contentsOfFile: requests, encoding: .utf8).split(separator: "\n").map(String.init)
        let fewer = try scratch.writeFile("ride-requests.csv", lines.dropLast(3).joined(separator: "\n") + "\n")
        let sync = try database.run(["import", "ride-requests", fewer, "--sync", "--max-archive", "100%"])
        try holder.execute("rollback")
        let paired = try pair.finish()

        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(try database.count("select count(*) from ride_pairings") > 0)
        #expect(sync.status == 75, "the import ran while rides pair was seating: \(sync.stdout)\(sync.stderr)")
        let again = try database.run(["import", "ride-requests", fewer, "--sync", "--max-archive", "100%"])
        #expect(again.status == 0, "\(again.stderr)")
        // Whatever the sync withdrew, no seat stays taken by a request that is no longer open.
        #expect(try database.count("""
            select count(*) from ride_pairings p join ride_requests r on r.id = p.request_id
            where p.ended_at is null and r.status = 'cancelled'
            """) == 0)
    }

    @Test("notify beside undo: a join sent while the undo runs is taken back with a left, never silently")
    func notifyBesideUndo() throws {
        let database = try TestDatabase(importing: "central-coast")
        let (answer, _) = try placeableAnswer(database)
        // Only place's messages are due.
        try database.connect().execute("update notifications set status = 'cancelled' where status = 'pending'")
        let placed = try database.run(["place", answer, "--format", "json"])
        try #require(placed.status == 0, "\(placed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(placed.stdout.utf8)) as? [String: Any])
        let run = try #require(report["run_id"] as? Int)

        // The mail server takes 1.5 s to accept a leader's joined message: notify holds it meanwhile.
        let server = try FaultySMTPServer([.init(.endOfData, containing: " joined ", .pause(1.5))])
        let notify = try BackgroundCommand(["notify", "--no-digest"], environment: [
            "DATABASE_URL": database.url, "CRUBATCH_SMTP_URL": server.url(), "CRUBATCH_FROM": "Cru <groups@cru.example>",
        ])
        try #require(waitUntil(timeout: 20) { server.events.contains { $0.event == "pause" } },
                     "notify never sent a joined message")
        let undo = try database.run(["undo", String(run), "--format", "json"])
        let notified = try notify.finish()

        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(notified.status == 0, "\(notified.stderr)")
        let sentJoins = try database.count("""
            select count(*) from notifications where kind = 'joined' and status = 'sent'
            """)
        try #require(sentJoins > 0, "no joined message was sent during the undo")
        // Each leader told of the join is told of the leave, and the undo says what was sent.
        #expect(try database.count("""
            select count(*) from notifications j where j.kind = 'joined' and j.status = 'sent' and not exists (
                select 1 from notifications l where l.kind = 'left' and l.status = 'pending'
                and l.membership_id = j.membership_id and l.recipient_id = j.recipient_id)
            """) == 0)
        #expect(undo.stdout.contains("\"joined\" : \(sentJoins)"), "\(undo.stdout)")
        #expect(try database.count("""
            select count(*) from memberships where status <> 'left'
            and id in (select membership_id from notifications where kind = 'joined' and status = 'sent')
            """) == 0)
        #expect(try database.count("""
            select count(*) from notifications where kind in ('joined', 'welcome') and status = 'pending'
            """) == 0)
    }
}
