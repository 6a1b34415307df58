import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

@Suite("import")
struct ImportTests {
    private let scratch = ScratchDirectory()

    /// Writes a students.csv into this test's scratch folder (over the last one); its path.
    private func studentsFile(_ text: String) throws -> String {
        try scratch.writeFile("students.csv", text)
    }

    @Test("import --dir loads central-coast; running it again inserts and updates nothing")
    func loadCentralCoastTwice() throws {
        let database = try TestDatabase()
        let first = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("0 errors"))
        #expect(try database.count("select count(*) from campuses") >= 3)
        #expect(try database.count("select count(*) from ministries") >= 8)
        #expect(try database.count("select count(*) from people where is_leader") >= 40)
        #expect(try database.count("select count(*) from people where not is_leader") >= 500)
        #expect(try database.count("select count(*) from community_groups") >= 30)
        #expect(try database.count("select count(*) from group_leaders") >= 30)
        #expect(try database.count("select count(*) from memberships") > 0)
        #expect(try database.count("select count(*) from import_runs where status = 'succeeded'") == 12)
        // Each file's run records what it inserted, the first file's too.
        #expect(try database.count("select rows_inserted from import_runs where kind = 'campuses'") == 3)
        #expect(try database.count("select count(*) from import_runs where rows_inserted = 0") == 0)
        let stamps = try database.connect().query("select max(updated_at)::text from people").text

        let second = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--format", "json"])
        #expect(second.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as! [String: Any]
        let files = report["files"] as! [[String: Any]]
        #expect(files.count == 12)
        for file in files {
            #expect(file["inserted"] as? Int == 0, "\(file)")
            #expect(file["updated"] as? Int == 0, "\(file)")
            #expect(file["unchanged"] as? Int == file["read"] as? Int)
        }
        #expect(try database.connect().query("select max(updated_at)::text from people").text == stamps)

        let runs = try database.run(["runs", "--limit", "3"])
        #expect(runs.status == 0)
        let lines = runs.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains("ride-requests") && lines[1].contains("succeeded") && lines[1].contains(NSUserName()))
    }

    @Test("values are normalised on the way in")
    func normalisedValues() throws {
        let database = try LoadedDatabase.get()
        let connection = try database.connect()
        #expect(try database.count("select count(*) from people where phone !~ '^\\+1[2-9][0-9]{9}$'") == 0)
        #expect(try database.count("select count(*) from people where email <> lower(email)") == 0)
        #expect(try database.count("select count(*) from community_groups where meeting_day is null") == 0)
        let time = try connection.query("select to_char(meeting_time, 'HH24:MI') from community_groups where code = 'cp-small-tue'").text
        #expect(time == "19:00")
    }

    private static let oneBadRow = """
        email,first_name,last_name,phone,school_year
        amy.good@example.edu,Amy,Good,(805) 555-0101,1
        ben.bad@example.edu,Ben,Bad,555-12,2
        cal.good@example.edu,Cal,Good,805-555-0102,3

        """

    @Test("one bad row: abort writes nothing; skip loads the rest and the fixed rejects file imports")
    func badRowAbortSkipAndRejects() throws {
        let database = try TestDatabase()
        let path = try studentsFile(Self.oneBadRow)
        let before = try database.tableCounts()

        let aborted = try database.run(["import", "students", path])
        #expect(aborted.status == 1)
        #expect(aborted.stderr.contains("\(path):3:4: error[invalid-phone]"))
        #expect(aborted.stdout.contains("nothing was written"))
        #expect(try database.tableCounts() == before)
        #expect(try database.count("select count(*) from import_runs where status = 'rejected'") == 1)

        let rejects = try scratch.folder() + "/r.csv"
        let skipped = try database.run(["import", "students", path, "--on-error", "skip", "--rejects", rejects])
        #expect(skipped.status == 1)
        #expect(try database.count("select count(*) from people where email in ('amy.good@example.edu', 'cal.good@example.edu')") == 2)
        #expect(try database.count("select count(*) from people where email = 'ben.bad@example.edu'") == 0)
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(rejected == "email,first_name,last_name,phone,school_year,error_line,error_code,error_message\r\n"
            + "ben.bad@example.edu,Ben,Bad,555-12,2,3,invalid-phone,phone: not a valid phone number\r\n")
        let mode = try FileManager.default.attributesOfItem(atPath: rejects)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        try writeFile(rejects, rejected.replacingOccurrences(of: "555-12", with: "(805) 555-0177"))
        let fixed = try database.run(["import", "students", rejects])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try database.connect().query("select phone from people where email = 'ben.bad@example.edu'").text == "+18055550177")
    }

    private static let rowsWithSeveralErrors = """
        email,first_name,last_name,phone,school_year,ministries
        amy.good@example.edu,Amy,Good,(805) 555-0101,Fr,Cru Cal Poly
        ben.bad@example.edu,Ben,Bad,555-12,So,"Cru Cal Poly, Destno Cal Poly"
        cal.bad@example.edu,,Bad,805-555-0102,9,cru-calpoly

        """

    @Test("every error of a row in one run; under abort --rejects holds every row, and fixed it loads them all")
    func everyErrorAndWholeRejects() throws {
        let database = try TestDatabase(importing: "central-coast")
        let path = try studentsFile(Self.rowsWithSeveralErrors)
        let rejects = try scratch.folder() + "/r.csv"

        let aborted = try database.run(["import", "students", path, "--rejects", rejects])
        #expect(aborted.status == 1)
        let errors = aborted.stderr.split(separator: "\n").filter { $0.contains("error[") }.map { String($0.prefix { $0 != "]" }) + "]" }
        #expect(errors == ["\(path):3:4: error[invalid-phone]", "\(path):3:6: error[unknown-reference]",
                           "\(path):4:2: error[missing-value]", "\(path):4:5: error[out-of-range]"])
        #expect(aborted.stdout.contains("4 errors, 0 warnings: nothing was written\n"
            + "rejects: \(rejects) holds every row (3), 2 of them rejected: fix their cells and import it to load everything"))
        let written = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(written == "email,first_name,last_name,phone,school_year,ministries,error_line,error_code,error_message\r\n"
            + "amy.good@example.edu,Amy,Good,(805) 555-0101,Fr,Cru Cal Poly,,,\r\n"
            + "ben.bad@example.edu,Ben,Bad,555-12,So,\"Cru Cal Poly, Destno Cal Poly\",3,invalid-phone;unknown-reference,"
            + "\"phone: not a valid phone number | ministry \"\"Destno Cal Poly\"\" does not exist (did you mean \"\"Destino Cal Poly\"\"?)\"\r\n"
            + "cal.bad@example.edu,,Bad,805-555-0102,9,cru-calpoly,4,missing-value;out-of-range,"
            + "first_name is required but empty | school_year: school year 9 is outside 1-5\r\n")

        let fixed = written.replacingOccurrences(of: "555-12", with: "(805) 555-0177")
            .replacingOccurrences(of: "Destno", with: "Destino").replacingOccurrences(of: "cal.bad@example.edu,,Bad,805-555-0102,9",
                                                                                       with: "cal.bad@example.edu,Cal,Bad,805-555-0102,4")
        try writeFile(rejects, fixed)
        let loaded = try database.run(["import", "students", rejects])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try database.count("select count(*) from people where email like '%.%@example.edu' and email ~ '^(amy|ben|cal)'") == 3)
        #expect(try database.count("""
            select count(*) from person_ministries pm join people p on p.id = pm.person_id where p.email = 'ben.bad@example.edu'
            """) == 2)

        // Under skip the file holds the rejected rows only, and JSON says which.
        let other = try scratch.writeFile("other.csv", Self.rowsWithSeveralErrors.replacingOccurrences(of: "@example.edu", with: "@example.org"))
        let skipped = try database.run(["import", "students", other, "--on-error", "skip", "--rejects", rejects, "--format", "json"])
        #expect(skipped.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [String: Any]
        let summary = document?["rejects"] as? [String: Any]
        #expect(summary?["every_row"] as? Bool == false && summary?["rows"] as? Int == 2 && summary?["rejected"] as? Int == 2)
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\r\n").count == 3)
    }

    @Test("--file loads files whatever their names; a kind given twice is a usage error")
    func namedFiles() throws {
        let database = try TestDatabase()
        let directory = try scratch.folder("sheets")
        try scratch.writeFile("sheets/Campus list - Sheet1.csv", "code,name,timezone\nucsb,UC Santa Barbara,Pacific\n")
        try scratch.writeFile("sheets/ministries.csv", "code,name,campus\ncru-ucsb,Cru UCSB,UC Santa Barbara\n")
        let loaded = try database.run(["import", "--dir", directory, "--file", "campuses=Campus list - Sheet1.csv"])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(!loaded.stderr.contains("skipped-file"))
        #expect(try database.count("select count(*) from ministries m join campuses c on c.id = m.campus_id where c.code = 'ucsb'") == 1)
        let twice = try database.run(["import", "--dir", directory, "--file", "ministries=Campus list - Sheet1.csv"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("ministries is given twice"))
        let alone = try database.run(["validate", "--file", "campuses=\(directory)/Campus list - Sheet1.csv"])
        #expect(alone.status == 0, "\(alone.stderr)")
    }

    @Test("--dry-run reports what would change and writes nothing")
    func dryRun() throws {
        let database = try TestDatabase()
        let before = try database.tableCounts()
        let result = try database.run(["import", "--dir", TestEnvironment.fixture("central-coast"), "--dry-run"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("would insert"))
        #expect(result.stdout.contains("dry run, nothing was written"))
        #expect(try database.tableCounts() == before)
        #expect(try database.count("select count(*) from import_runs where dry_run") == 12)
    }

    @Test("--max-errors stops early")
    func maxErrors() throws {
        let database = try TestDatabase()
        var text = "email,first_name,last_name\n"
        for index in 0..<50 { text += "bad\(index)@@x,First,Last\n" }
        let result = try database.run(["import", "students", try studentsFile(text), "--max-errors", "5"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("error[invalid-email]") }.count == 5)
        #expect(result.stdout.contains("stopped at --max-errors"))
    }

    @Test("--blank keep leaves stored values; --blank clear erases them")
    func blankCells() throws {
        let database = try TestDatabase()
        _ = try database.run(["import", "students", try studentsFile("email,first_name,last_name,phone\nzed@example.edu,Zed,Last,805-555-0111\n")])
        let keep = try database.run(["import", "students", try studentsFile("email,first_name,last_name,phone\nzed@example.edu,Zed,Last,\n")])
        #expect(keep.status == 0)
        #expect(try database.connect().query("select phone from people where email = 'zed@example.edu'").text == "+18055550111")
        #expect(keep.stdout.contains("students     1         0        0         0          1"))
        let clear = try database.run(["import", "students", try studentsFile("email,first_name,last_name,phone\nzed@example.edu,Zed,Last,\n"),
                                      "--blank", "clear"])
        #expect(clear.status == 0)
        #expect(try database.connect().query("select phone from people where email = 'zed@example.edu'").text == nil)
    }

    @Test("an update touches only changed rows")
    func updateCounts() throws {
        let database = try TestDatabase()
        _ = try database.run(["import", "students", try studentsFile("email,first_name,last_name\na@x.edu,A,One\nb@x.edu,B,Two\n")])
        let result = try database.run(["import", "students", try studentsFile("email,first_name,last_name\na@x.edu,A,One\nB@X.edu,Bea,Two\nc@x.edu,C,Three\n"),
                                       "--format", "json"])
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let file = (report["files"] as! [[String: Any]])[0]
        #expect(file["inserted"] as? Int == 1)
        #expect(file["updated"] as? Int == 1)
        #expect(file["unchanged"] as? Int == 1)
        #expect(try database.connect().query("select first_name from people where email = 'b@x.edu'").text == "Bea")
    }

    @Test("a row whose only change is its list counts as updated and gets a new updated_at")
    func listOnlyChange() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        let before = try connection.query("select code, updated_at::text from community_groups order by code").texts
        let exported = try database.run(["export", "groups"]).stdout
        // Swap cp-small-tue's two leaders: same cells otherwise.
        let edited = exported.split(separator: "\r\n").map { line -> String in
            guard line.hasPrefix("cp-small-tue,") else { return String(line) }
            return line.replacingOccurrences(of: "tomas.perez@cru.org;abigail.dangelo@cru.org",
                                             with: "abigail.dangelo@cru.org;tomas.perez@cru.org")
        }.joined(separator: "\r\n")
        #expect(edited != exported.trimmingCharacters(in: .newlines))
        let result = try database.run(["import", "groups", try scratch.writeFile("groups.csv", edited + "\r\n"), "--format", "json"])
        let file = ((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["files"] as! [[String: Any]])[0]
        #expect(file["updated"] as? Int == 1, "\(file)")
        #expect(file["inserted"] as? Int == 0)
        let after = try connection.query("select code, updated_at::text from community_groups order by code").texts
        let changed = zip(before, after).filter { $0.0 != $0.1 }.map { $0.1[0] }
        #expect(changed == ["cp-small-tue"])
        let leaders = try connection.query("""
            select string_agg(p.email, ';' order by gl.position) from group_leaders gl join people p on p.id = gl.person_id
            join community_groups g on g.id = gl.group_id where g.code = 'cp-small-tue'
            """).text
        #expect(leaders == "abigail.dangelo@cru.org;tomas.perez@cru.org")
    }

    @Test("Excel exports: BOM + CRLF + Title Case, semicolons, Windows-1252")
    func excelExports() throws {
        let database = try TestDatabase()
        let bom = try database.run(["import", "campuses", TestEnvironment.fixture("excel/bom-crlf/campuses.csv")])
        #expect(bom.status == 0, "\(bom.stderr)")
        #expect(bom.stdout.contains("campuses     2         2"))
        let semicolon = try database.run(["import", "leaders", TestEnvironment.fixture("excel/semicolon/leaders.csv")])
        #expect(semicolon.status == 0, "\(semicolon.stderr)")
        #expect(try database.count("select count(*) from people where is_leader") == 3)

        let windows = TestEnvironment.fixture("excel/windows-1252/students.csv")
        let refused = try database.run(["import", "students", windows])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("error[encoding-error]"))
        #expect(refused.stderr.contains("--encoding windows-1252"))
        let accepted = try database.run(["import", "students", windows, "--encoding", "windows-1252"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try database.count("select count(*) from people where not is_leader and (first_name || last_name) ~ '[éñáíóúü]'") >= 1)
    }

    @Test("a missing file exits 66; a bad kind exits 64")
    func missingFile() throws {
        let database = try TestDatabase()
        let result = try database.run(["import", "groups", "/nonexistent/groups.csv"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent/groups.csv: no such file"))
    }

    @Test("a second import of the same kind exits 75 while the first holds the lock")
    func concurrentImportLocked() throws {
        let database = try TestDatabase()
        let holder = try database.connect()
        let key = 0x6372_7562_1000 + Int64(Kind.allCases.firstIndex(of: .students)!)
        #expect(try holder.tryAdvisoryLock(key))
        let result = try database.run(["import", "students", try studentsFile("email,first_name,last_name\na@x.edu,A,B\n")])
        #expect(result.status == 75)
        #expect(result.stderr.contains("another import of students"))
        try holder.advisoryUnlock(key)
        #expect(try database.run(["import", "students", try studentsFile("email,first_name,last_name\na@x.edu,A,B\n")]).status == 0)
    }

    @Test("SIGKILL in the middle of a large import leaves the database exactly as before")
    func killedImportLeavesNothing() throws {
        let database = try TestDatabase(importing: "central-coast")
        let before = try database.tableCounts()
        var text = "email,first_name,last_name,phone,school_year\n"
        text.reserveCapacity(12_000_000)
        for index in 0..<200_000 { text += "kill\(index)@example.edu,First\(index),Last,805-555-\(1000 + index % 9000),\(1 + index % 5)\n" }
        let path = try studentsFile(text)

        let importing = try database.start(["import", "students", path])
        // Wait until the import is inside its transaction, streaming rows.
        let watcher = try database.connect()
        let streaming = try waitUntil(timeout: 5) {
            try watcher.query("""
                select count(*) from pg_stat_activity where datname = current_database() and application_name = 'crubatch'
                and state <> 'idle' and query ilike 'copy stage%'
                """).text != "0"
        }
        #expect(streaming, "the import never reached COPY")
        importing.killHard()
        #expect(importing.terminationReason == .uncaughtSignal)
        // The server notices the dead client and rolls back; wait for its session to go.
        try waitUntil(timeout: 5) {
            try watcher.query("select count(*) from pg_stat_activity where datname = current_database() and application_name = 'crubatch'").text == "0"
        }
        #expect(try database.tableCounts() == before)
        #expect(try database.count("select count(*) from people where email like 'kill%'") == 0)
    }

    @Test("a row naming a row refused earlier in the load says it was refused above, with that row's problem as its note")
    func refusedAbove() throws {
        let database = try TestDatabase()
        try withScratchDirectory { folder in
            try writeFile(folder + "/campuses.csv", "code,name\ncalpoly,Cal Poly\n")
            try writeFile(folder + "/ministries.csv", "code,name,campus\ncru,Cru,calpoly\nepic,Epic,nowhere\n")
            try writeFile(folder + "/leaders.csv", "email,first_name,last_name,phone\nlee@cru.org,Lee,Ann,805-555-0100\nbad@cru.org,Bad,Phone,555\n")
            try writeFile(folder + "/groups.csv", "code,ministry,name,leaders\nepic-tue,epic,Epic Tuesday,lee@cru.org\ncru-wed,cru,Cru Wednesday,bad@cru.org\n")
            let result = try database.run(["import", "--dir", folder, "--dry-run"])
            #expect(result.status == 1, "\(result.stderr)")
            for line in ["\(folder)/groups.csv:2:2: error[unknown-reference]: ministry \"epic\" was refused above, so it does not exist\n  note: \(folder)/ministries.csv:3: campus \"nowhere\" does not exist",
                         "\(folder)/groups.csv:3:4: error[unknown-reference]: leader \"bad@cru.org\" was refused above, so it does not exist\n  note: \(folder)/leaders.csv:3:"] {
                #expect(result.stderr.contains(line), "\(line)\n\(result.stderr)")
            }
            #expect(!result.stderr.contains("add it to ministries.csv"), "\(result.stderr)")
        }
    }
}

@Suite("progress line")
struct ProgressLineTests {
    @Test("the progress line appears on a terminal and never in a pipe")
    func progressOnlyOnTerminal() throws {
        let database = try TestDatabase()
        let students = TestEnvironment.fixture("central-coast/students.csv")
        let piped = try database.run(["import", "students", students])
        #expect(!piped.stderr.contains("rows/s"))
        // `script` gives the command a pseudo-terminal, as a person at a shell would have.
        let command = "\(TestEnvironment.binary) import campuses \(TestEnvironment.fixture("central-coast/campuses.csv")) >/dev/null"
        let terminal = try CommandResult.run(["-q", "-e", "-c", command, "/dev/null"], executable: "/usr/bin/script",
                                             environment: ["DATABASE_URL": database.url])
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("campuses: 3 rows"))
        #expect(terminal.stdout.contains("rows/s, 100%"))
    }
}
