import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// `import --dry-run` (and `validate`) list what would change, field by field, and what follows from
/// it, against the real database, and write nothing.
@Suite("preview: field-level dry run")
struct PreviewTests {
    private let scratch = ScratchDirectory()

    /// central-coast's file `name` with `edit` applied to its lines (header first).
    private func fixtureFile(_ name: String, _ edit: ([String]) -> [String]) throws -> String {
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/" + name), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        return try scratch.writeFile(name, edit(lines).joined(separator: "\n") + "\n")
    }


    /// Every row of the tables a load could touch, and the outbox, to show a command wrote nothing.
    private func fingerprint(_ database: TestDatabase) throws -> String {
        try database.fingerprint(["community_groups", "group_leaders", "memberships", "notifications", "run_changes"])
    }

    /// The groups file with 3 fields of 2 groups changed and one group with members left out.
    private func changedGroups() throws -> String {
        try fixtureFile("groups.csv") { lines in
            lines.compactMap { line in
                if line.hasPrefix("ah-so-women-wed,") { return nil }
                if line.hasPrefix("cp-fr-men-mon,") {
                    return line.replacingOccurrences(of: "Freshmen Men (Monday),Monday,19:00",
                                                     with: "Freshmen Men (Monday night),Monday,19:30")
                }
                if line.hasPrefix("cp-fr-men-wed,") {
                    return line.replacingOccurrences(of: "\"Sierra Madre Hall, 2nd floor lounge\"", with: "Sierra Madre Hall lobby")
                }
                return line
            }
        }
    }

    @Test("a sync dry run that changes 3 fields of 2 groups and drops 1 previews exactly those 3 old -> new pairs, the dropped group with its members, and writes nothing")
    func groupsSyncPreview() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try changedGroups()
        let before = try fingerprint(database)
        let members = try database.connect().query("""
            select g.code || ' / ' || p.first_name || ' ' || p.last_name from memberships m
            join community_groups g on g.id = m.group_id join people p on p.id = m.person_id
            where g.code = 'ah-so-women-wed' and m.status <> 'left' order by 1
            """).texts.compactMap { $0[0] }
        #expect(members.count >= 2)

        let dry = try database.run(["import", "groups", file, "--sync", "--dry-run", "--format", "json"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let document = try jsonObject(dry.stdout)
        let counts = try #require((document["files"] as? [[String: Any]])?.first)
        let changes = try #require(counts["changes"] as? [String: Any])
        let updated = try #require(changes["updated"] as? [[String: Any]])
        let pairs = updated.flatMap { row in
            (row["fields"] as? [[String: Any]] ?? []).map { field in
                "\(row["key"] ?? "")|\(field["column"] ?? "")|\(field["old"] ?? "nil")|\(field["new"] ?? "nil")"
            }
        }
        #expect(pairs == [
            "cp-fr-men-mon|name|Freshmen Men (Monday)|Freshmen Men (Monday night)",
            "cp-fr-men-mon|time|19:00|19:30",
            "cp-fr-men-wed|location|Sierra Madre Hall, 2nd floor lounge|Sierra Madre Hall lobby",
        ])
        #expect((changes["inserted"] as? [String]) == [])
        #expect((changes["restored"] as? [[String: Any]])?.isEmpty == true)
        #expect(counts["would_update"] as? Int == 2 && counts["would_archive"] as? Int == 1)
        #expect(counts["archived_rows"] as? [String] == ["ah-so-women-wed"])
        let effects = try #require(document["effects"] as? [String: Any])
        let groups = try #require(effects["archived_groups"] as? [[String: Any]])
        #expect(groups.count == 1 && groups.first?["group"] as? String == "ah-so-women-wed")
        #expect(groups.first?["members"] as? [String] == members)
        // Archiving a group ends no membership and queues no message: its members are kept for a restore.
        #expect((effects["ended_memberships"] as? [String]) == [])
        #expect((effects["queued_messages"] as? [Any])?.isEmpty == true)

        let text = try database.run(["import", "groups", file, "--sync", "--dry-run"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("""
            groups: would update cp-fr-men-mon
                name: "Freshmen Men (Monday)" -> "Freshmen Men (Monday night)"
                time: "19:00" -> "19:30"
            groups: would update cp-fr-men-wed
                location: "Sierra Madre Hall, 2nd floor lounge" -> "Sierra Madre Hall lobby"
            groups: would archive ah-so-women-wed
            groups: archiving ah-so-women-wed takes \(members.count) current members off its roster
            """), "\(text.stdout)")
        let limited = try database.run(["import", "groups", file, "--sync", "--dry-run", "--diff-limit", "1"])
        #expect(limited.stdout.contains("groups: would update cp-fr-men-mon\n"), "\(limited.stdout)")
        #expect(!limited.stdout.contains("would update cp-fr-men-wed"))
        #expect(limited.stdout.contains("    ... and 1 more\n"))
        #expect(limited.stdout.contains("    ... and \(members.count - 1) more\n"))

        let validate = try database.run(["validate", "groups", file])
        #expect(validate.status == 0 && validate.stdout.contains("would update cp-fr-men-wed"), "\(validate.stdout)")
        #expect(try fingerprint(database) == before)
    }

    @Test("a memberships sync dry run lists the memberships that would end and counts the left messages they would queue; the real run queues exactly that many")
    func membershipsSyncPreview() throws {
        let database = try TestDatabase(importing: "central-coast")
        // As if `notify` had sent the joins: a leader told of a join is told of the leave.
        try database.connect().execute("update notifications set status = 'sent', sent_at = now()")
        let dropped = ["dnunez@my.hancockcollege.edu", "xdelgado@my.hancockcollege.edu"]
        let file = try fixtureFile("memberships.csv") { lines in
            lines.filter { line in !dropped.contains { line.hasPrefix("ah-so-women-wed,\($0),") } }
        }
        let leaders = try database.count("""
            select count(*) from group_leaders gl join community_groups g on g.id = gl.group_id where g.code = 'ah-so-women-wed'
            """)
        #expect(leaders > 0)
        let names = try database.connect().query("""
            select 'ah-so-women-wed / ' || first_name || ' ' || last_name from people where email = any(\(dropped)::text[]) order by 1
            """).texts.compactMap { $0[0] }
        let before = try fingerprint(database)

        let dry = try database.run(["import", "memberships", file, "--sync", "--dry-run", "--format", "json"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let effects = try #require(try jsonObject(dry.stdout)["effects"] as? [String: Any])
        #expect(effects["ended_memberships"] as? [String] == names)
        let queued = try #require(effects["queued_messages"] as? [[String: Any]])
        #expect(queued.count == 1 && queued.first?["kind"] as? String == "left" && queued.first?["count"] as? Int == 2 * leaders,
                "\(queued)")
        #expect(try fingerprint(database) == before)

        let text = try database.run(["import", "memberships", file, "--sync", "--dry-run"])
        #expect(text.stdout.contains(names.map { "memberships: would archive \($0)\n" }.joined()), "\(text.stdout)")
        #expect(!text.stdout.contains("would end"))
        #expect(text.stdout.contains("messages: would queue \(2 * leaders) left\n"))

        let real = try database.run(["import", "memberships", file, "--sync"])
        #expect(real.status == 0, "\(real.stderr)")
        #expect(real.stdout.contains("memberships: ended 2\nmessages: queued \(2 * leaders) left\n"), "\(real.stdout)")
        #expect(try database.count("select count(*) from notifications where kind = 'left' and status = 'pending'") == 2 * leaders)
    }

    @Test("the preview follows the merge's own rules: a blank cell keeps the stored value unless --blank clear, and an archived group listed again would be restored")
    func previewFollowsTheMerge() throws {
        let database = try TestDatabase(importing: "central-coast")
        let description = "Walking through the Gospel of Mark."
        let blanked = try fixtureFile("groups.csv") { lines in
            lines.map { $0.hasPrefix("cp-fr-men-mon,") ? $0.replacingOccurrences(of: description, with: "") : $0 }
        }
        let keep = try database.run(["import", "groups", blanked, "--dry-run"])
        #expect(keep.status == 0 && !keep.stdout.contains("groups: would update"), "\(keep.stdout)")
        let clear = try database.run(["import", "groups", blanked, "--dry-run", "--blank", "clear"])
        #expect(clear.stdout.contains("groups: would update cp-fr-men-mon\n    description: \"\(description)\" -> (blank)\n"),
                "\(clear.stdout)")

        let archived = try database.connect().query("""
            update community_groups set archived_at = now() where code = 'ah-so-women-wed' returning code
            """).rows.count
        #expect(archived == 1)
        let restore = try database.run(["import", "groups", TestEnvironment.fixture("central-coast/groups.csv"), "--dry-run"])
        #expect(restore.stdout.hasPrefix("groups: would restore ah-so-women-wed\nkind "), "\(restore.stdout)")
        #expect(try database.count("select count(*) from community_groups where archived_at is not null") == 1)
    }
}
