import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// Lists that shrink and come back (`import --sync`), and students who leave and move.
@Suite("lifecycle: sync, restore, moves")
struct LifecycleTests {
    /// Two Hancock groups: a junior men's group (the only one a Hancock junior man fits) and a group
    /// with eight members.
    static let dropped = ["ah-jr-men-wed", "ah-so-women-wed"]

    private let scratch = ScratchDirectory()

    private func loaded() throws -> TestDatabase { try TestDatabase(importing: "central-coast") }

    /// Writes `text` to the file `name` of this test's scratch folder; its path.
    private func write(_ text: String, _ name: String) throws -> String { try scratch.writeFile(name, text) }

    /// central-coast's groups.csv keeping the header and the groups `keep` accepts.
    private func groupsFile(keeping keep: (String) -> Bool) throws -> String {
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/groups.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let code = { (line: String) in String(line.prefix { $0 != "," }) }
        return try write(([lines[0]] + lines.dropFirst().filter { keep(code($0)) }).joined(separator: "\n") + "\n", "groups.csv")
    }


    /// The file counts of a one-file `import --format json`.
    private func counts(_ result: CommandResult) throws -> [String: Any] {
        try #require((try jsonObject(result.stdout)["files"] as? [[String: Any]])?.first)
    }

    /// Every row of the group tables, to show a command wrote nothing.
    private func groupsFingerprint(_ database: TestDatabase) throws -> String {
        try database.fingerprint(["community_groups", "group_leaders", "memberships", "run_changes"])
    }

    private static let hancockJunior = """
        First name,Last name,Email,Sex,Year,Campus,Ministries,Availability
        Jon,Junior,jon.junior@example.edu,Male,Junior,Allan Hancock College,cru-hancock,Wed evening

        """

    @Test("a sync that drops 2 of 44 groups archives exactly those 2: gone from exports, rosters, calendars and placement; again it changes nothing; listed again they are restored")
    func syncArchivesDroppedGroups() throws {
        let database = try loaded()
        let answer = try write(Self.hancockJunior, "answer.csv")
        let placedBefore = try database.run(["place", answer, "--dry-run", "--format", "csv"])
        #expect(placedBefore.stdout.contains(",placed,,ah-jr-men-wed,"), "\(placedBefore.stdout)")
        let file = try groupsFile { !Self.dropped.contains($0) }

        let dry = try database.run(["import", "groups", file, "--sync", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("groups: would archive ah-jr-men-wed\ngroups: would archive ah-so-women-wed\n"))
        #expect(dry.stdout.contains("would archive"))
        #expect(try database.count("select count(*) from community_groups where archived_at is not null") == 0)

        let sync = try database.run(["import", "groups", file, "--sync", "--format", "json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let synced = try counts(sync)
        #expect(synced["archived"] as? Int == 2 && synced["unchanged"] as? Int == 42 && synced["restored"] as? Int == 0)
        #expect(synced["archived_rows"] as? [String] == Self.dropped)
        let archived = try database.connect().query("select code from community_groups where archived_at is not null order by code")
            .texts.map { $0[0] }
        #expect(archived == Self.dropped)
        // Kept for history: the rows and their members are still there.
        #expect(try database.count("select count(*) from community_groups") == 44)
        let members = try String(contentsOfFile: TestEnvironment.fixture("central-coast/memberships.csv"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("ah-so-women-wed,") }.count
        #expect(members > 0)
        #expect(try database.count("""
            select count(*) from memberships m join community_groups g on g.id = m.group_id
            where g.code = 'ah-so-women-wed' and m.status <> 'left'
            """) == members)

        let groups = try database.run(["export", "groups"])
        #expect(groups.stdout.split(separator: "\r\n").count == 43)
        let roster = try database.run(["export", "roster", "--for", "machines"])
        #expect(roster.status == 0)
        let forPeople = try database.run(["export", "roster"])
        #expect(forPeople.stdout.contains("(ah-fr-men-mon)"))
        let calendar = try scratch.folder() + "/all.ics"
        #expect(try database.run(["export", "calendar", "--out", calendar]).status == 0)
        let ics = try String(contentsOfFile: calendar, encoding: .utf8)
        for code in Self.dropped {
            #expect(!groups.stdout.contains("\n\(code),"))
            #expect(!roster.stdout.contains("\n\(code),"))
            #expect(!forPeople.stdout.contains("(\(code))"))
            #expect(!ics.contains("UID:group-\(code)@"))
            let own = try database.run(["export", "roster", "--group", code, "--for", "machines"])
            #expect(own.stdout.split(separator: "\r\n").count == 1, "\(code): \(own.stdout)")
        }
        #expect(ics.contains("UID:group-ah-fr-men-mon@"))
        let placedAfter = try database.run(["place", answer, "--dry-run", "--format", "csv"])
        #expect(placedAfter.stdout.contains(",no-matching-group,year,"), "\(placedAfter.stdout)")

        let before = try groupsFingerprint(database)
        let again = try database.run(["import", "groups", file, "--sync", "--format", "json"])
        #expect(again.status == 0)
        let second = try counts(again)
        #expect(second["archived"] as? Int == 0 && second["unchanged"] as? Int == 42 && second["updated"] as? Int == 0)
        // Only the run's own bookkeeping changed: no group row, and no change logged.
        let run = try #require(second["run_id"] as? Int)
        #expect(try database.count("select count(*) from run_changes where run_id = \(run)") == 0)
        #expect(try database.run(["runs", "show", String(run), "--rows"]).stdout.hasSuffix("it changed no rows\n"))
        #expect(try groupsFingerprint(database) == before)

        let back = try database.run(["import", "groups", TestEnvironment.fixture("central-coast/groups.csv"), "--sync", "--format", "json"])
        #expect(back.status == 0)
        let restored = try counts(back)
        #expect(restored["restored"] as? Int == 2 && restored["unchanged"] as? Int == 42 && restored["archived"] as? Int == 0)
        #expect(try database.count("select count(*) from community_groups where archived_at is not null") == 0)
        #expect(try database.run(["export", "roster", "--group", "ah-so-women-wed", "--for", "machines"]).stdout.split(separator: "\r\n").count == members + 1)
        let summary = try database.run(["import", "groups", TestEnvironment.fixture("central-coast/groups.csv")])
        #expect(summary.stdout.hasPrefix("kind    read  inserted  updated  restored  unchanged  archived  rejected  seconds\n"))
    }

    @Test("a sync of an empty file or of 3 of 44 groups is refused with exit 1, lists what it would archive, and writes nothing")
    func refusedSyncs() throws {
        let database = try loaded()
        let before = try groupsFingerprint(database)
        let tables = try database.tableCounts()

        let empty = try database.run(["import", "groups", try groupsFile { _ in false }, "--sync"])
        #expect(empty.status == 1)
        #expect(empty.stdout.contains("sync refused: the file lists no groups"))
        #expect(empty.stdout.contains("nothing was written"))

        let three = try groupsFile { ["cp-fr-men-mon", "cp-fr-men-wed", "cp-fr-men-thu"].contains($0) }
        let refused = try database.run(["import", "groups", three, "--sync"])
        #expect(refused.status == 1)
        #expect(refused.stdout.split(separator: "\n").filter { $0.hasPrefix("groups: would archive ") }.count == 41)
        #expect(refused.stdout.contains("it would archive 41 of the 44 groups in scope (all groups), 93%"))
        #expect(refused.stdout.contains("--max-archive 41"))
        #expect(try database.run(["import", "groups", three, "--sync", "--dry-run"]).status == 1)
        #expect(try groupsFingerprint(database) == before)
        #expect(try database.tableCounts() == tables)
        #expect(try database.count("select count(*) from import_runs where kind = 'groups' and status = 'rejected'") == 3)

        let allowed = try database.run(["import", "groups", three, "--sync", "--max-archive", "95%", "--format", "json"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try counts(allowed)["archived"] as? Int == 41)
    }

    @Test("--scope campus=cuesta: the file is the complete list of Cuesta's groups only")
    func scopedSync() throws {
        let database = try loaded()
        let cuesta = try groupsFile { $0.hasPrefix("cu-") || $0 == "destino-cu-women-mon" }
        let whole = try database.run(["import", "groups", cuesta, "--sync"])
        #expect(whole.status == 1, "without a scope the 7 rows would archive the other 37")

        let file = try groupsFile { ($0.hasPrefix("cu-") || $0 == "destino-cu-women-mon") && $0 != "cu-mixed-wed" }
        let scoped = try database.run(["import", "groups", file, "--sync", "--scope", "campus=cuesta", "--format", "json"])
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(try counts(scoped)["archived_rows"] as? [String] == ["cu-mixed-wed"])
        #expect(try database.connect().query("select code from community_groups where archived_at is not null").texts == [["cu-mixed-wed"]])

        let ministry = try database.run(["import", "groups", file, "--sync", "--scope", "ministry=destino-cuesta", "--dry-run",
                                         "--format", "json"])
        #expect(try counts(ministry)["would_archive"] as? Int == 0)
        #expect(try database.run(["import", "missions", TestEnvironment.fixture("central-coast/missions.csv"), "--sync",
                                  "--scope", "campus=cuesta"]).status == 64)
        #expect(try database.run(["import", "students", TestEnvironment.fixture("central-coast/students.csv"), "--sync"]).status == 64)
    }

    @Test("a memberships sync ends the members a group's file no longer lists; listed again they are active")
    func membershipsSync() throws {
        let database = try loaded()
        let lines = try String(contentsOfFile: TestEnvironment.fixture("central-coast/memberships.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let group = lines.filter { $0.hasPrefix("cp-fr-men-mon,") }
        let leaving = try #require(group.last?.split(separator: ",").dropFirst().first.map(String.init))
        let file = try write(([lines[0]] + group.dropLast()).joined(separator: "\n") + "\n", "memberships.csv")
        let current = try database.count("select count(*) from memberships where status <> 'left'")

        let sync = try database.run(["import", "memberships", file, "--sync", "--format", "json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try counts(sync)["archived"] as? Int == 1)
        #expect(try database.connect().query("""
            select m.status, m.ended_at is not null from memberships m join people p on p.id = m.person_id
            join community_groups g on g.id = m.group_id where g.code = 'cp-fr-men-mon' and p.email = \(leaving)
            """).texts == [["left", "t"]])
        #expect(try database.count("select count(*) from memberships where status <> 'left'") == current - 1)
        #expect(!(try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--for", "machines"]).stdout.contains(leaving)))
        #expect(try database.run(["export", "memberships"]).stdout.contains(",\(leaving),") )

        let back = try database.run(["import", "memberships", TestEnvironment.fixture("central-coast/memberships.csv"), "--format", "json"])
        #expect(try counts(back)["restored"] as? Int == 1)
        #expect(try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--for", "machines"]).stdout.contains(leaving))
    }

    @Test("import --move: the student ends up active in B only, A shows them as left, and A's seat is free")
    func importMove() throws {
        let database = try loaded()
        let student = "kkealoha@calpoly.edu"
        let connection = try database.connect()
        // A (cp-fr-men-mon) is full: its capacity is its member count.
        try connection.execute("""
            update community_groups set capacity = (select count(*) from memberships m where m.group_id = community_groups.id)
            where code = 'cp-fr-men-mon'
            """)
        _ = try database.run(["import", "students", try write("email,first_name,last_name\nnew.man@example.edu,New,Man\n", "students.csv")])
        let newcomer = try write("group,email\ncp-fr-men-mon,new.man@example.edu\n", "newcomer.csv")
        let full = try database.run(["import", "memberships", newcomer])
        #expect(full.status == 1)
        #expect(full.stderr.contains("error[over-capacity]"))

        let move = try database.run(["import", "memberships", try write("group,email\ncp-fr-men-wed,\(student)\n", "move.csv"),
                                     "--move", "--format", "json"])
        #expect(move.status == 0, "\(move.stderr)")
        let moved = try counts(move)
        #expect(moved["inserted"] as? Int == 1 && moved["archived"] as? Int == 1)
        #expect(try connection.query("""
            select g.code, m.status, m.ended_at is not null from memberships m join people p on p.id = m.person_id
            join community_groups g on g.id = m.group_id where p.email = \(student) order by g.code
            """).texts == [["cp-fr-men-mon", "left", "t"], ["cp-fr-men-wed", "active", "f"]])
        #expect(try database.run(["export", "memberships"]).stdout.contains("cp-fr-men-mon,\(student),"))
        let exported = try database.run(["export", "memberships"]).stdout.split(separator: "\r\n")
        #expect(exported.contains { $0.hasPrefix("cp-fr-men-mon,\(student),") && $0.hasSuffix(",left") })
        #expect(!(try database.run(["export", "roster", "--group", "cp-fr-men-mon", "--for", "machines"]).stdout.contains(student)))
        #expect(try database.run(["export", "roster", "--group", "cp-fr-men-wed", "--for", "machines"]).stdout.contains(student))
        // The leaders of A were never told about a member who has left.
        #expect(try database.count("""
            select count(*) from notifications n join memberships m on m.id = n.membership_id join people p on p.id = m.person_id
            join community_groups g on g.id = m.group_id where p.email = \(student) and g.code = 'cp-fr-men-mon' and n.status = 'cancelled'
            """) == 2)

        let joined = try database.run(["import", "memberships", newcomer])
        #expect(joined.status == 0, "the seat the move freed takes the newcomer: \(joined.stderr)")

        // Without --move a second group of the ministry is simply added.
        _ = try database.run(["import", "memberships", try write("group,email\ncp-fr-men-thu,\(student)\n", "added.csv")])
        #expect(try database.count("""
            select count(*) from memberships m join people p on p.id = m.person_id where p.email = \(student) and m.status = 'active'
            """) == 2)
    }

    @Test("place moves a student whose new answer their group no longer suits, ending the old membership")
    func placeMove() throws {
        let database = try loaded()
        let header = "First name,Last name,Email,Sex,Year,Campus,Ministries,Availability\n"
        let monday = try write(header + "Zed,Mover,zed.mover@example.edu,Male,Freshman,calpoly,cru-calpoly,Mon evening\n", "mon.csv")
        let wednesday = try write(header + "Zed,Mover,zed.mover@example.edu,Male,Freshman,calpoly,cru-calpoly,Wed evening\n", "wed.csv")
        #expect(try database.run(["place", monday, "--format", "csv"]).stdout.contains(",placed,,cp-fr-men-mon,"))
        #expect(try database.run(["place", monday, "--format", "csv"]).stdout.contains(",already-placed,,cp-fr-men-mon,"))
        let moved = try database.run(["place", wednesday, "--format", "json"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let report = try jsonObject(moved.stdout)
        #expect((report["counts"] as? [String: Any])?["memberships_ended"] as? Int == 1)
        let entry = try #require((report["answers"] as? [[String: Any]])?.first)
        #expect((entry["group"] as? [String: Any])?["code"] as? String == "cp-fr-men-wed")
        #expect(entry["message"] as? String == "moved from cp-fr-men-mon")
        #expect(try database.connect().query("""
            select g.code, m.status from memberships m join people p on p.id = m.person_id
            join community_groups g on g.id = m.group_id where p.email = 'zed.mover@example.edu' order by g.code
            """).texts == [["cp-fr-men-mon", "left"], ["cp-fr-men-wed", "active"]])
    }
}
