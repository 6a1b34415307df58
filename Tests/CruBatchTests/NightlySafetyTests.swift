@testable import CruBatch
import CruBatchTestSupport
import Foundation
import PostgresClient
import Testing

/// The names in a folder, hidden ones included, sorted.
private func entries(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

private func manifest(_ folder: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as! [String: Any]
}

private func manifestErrors(_ folder: String) throws -> [[String: Any]] {
    try manifest(folder)["errors"] as! [[String: Any]]
}

@Suite("nightly safety")
struct NightlySafetyTests {
    private let scratch = ScratchDirectory()

    /// The rides files of a nightly on 2026-11-20: central-coast's events that share rides and are still to come.
    static let upcomingRides = ["bridges-thanksgiving.csv", "winter-conference-2026.csv"]

    @Test("the file name function refuses every code that could leave its folder", arguments: [
        "..", "../../../escaped-group", "a/b", "", ".hidden", "-dash", "a..b", "Upper", "spa ce", "tab\t",
        String(repeating: "x", count: 64), String(repeating: "x", count: 300),
    ])
    func fileNameRefuses(code: String) {
        #expect(throws: UnexportableData.self) { try NightlyExport.fileName(for: code, of: "group", extension: "csv") }
    }

    @Test("the file name function accepts codes as import writes them")
    func fileNameAccepts() throws {
        #expect(try NightlyExport.fileName(for: "cp-small-tue", of: "group", extension: "csv") == "cp-small-tue.csv")
        #expect(try NightlyExport.fileName(for: "a.b_c-9", of: "campus", extension: "ics") == "a.b_c-9.ics")
        let longest = String(repeating: "x", count: CodeRule.maximumLength)
        #expect(try NightlyExport.fileName(for: longest, of: "group", extension: "csv") == longest + ".csv")
        #expect(throws: UnexportableData.self) { try NightlyExport.path("rosters/../x.csv", inside: "/out") }
    }

    @Test("codes written by SQL past the rule: no file outside the folder, that roster or calendar skipped, the rest written (exit 1)")
    func unsafeCodesAreSkipped() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        try connection.script("""
            alter table community_groups drop constraint community_groups_code_rule;
            alter table campuses drop constraint campuses_code_rule;
            update community_groups set code = '../../../escaped-group' where code = 'cp-small-tue';
            update community_groups set code = repeat('g', 300) where code = 'cp-fr-men-mon';
            update campuses set code = '../../../escaped-campus' where code = 'cuesta';
            """)
        let groups = try database.count("select count(*) from community_groups")
        let root = try scratch.folder()
        let out = root + "/a/b/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // Where `rosters/../../../escaped-group.csv` inside OUT/.DATE.PID.partial would land.
        try writeFile(root + "/a/b/escaped-group.csv", "someone else's file\n")

        let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(try String(contentsOfFile: root + "/a/b/escaped-group.csv", encoding: .utf8) == "someone else's file\n")
        let everything = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        #expect(everything.filter { $0.contains("escaped") } == ["a/b/escaped-group.csv"])
        #expect(try entries(out) == ["2026-11-20", "latest"])

        let folder = out + "/2026-11-20"
        let errors = try manifestErrors(folder)
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0["file"] == nil && ($0["error"] as? String)?.contains("cannot name a file") == true })
        #expect(result.stderr.contains("skipped a file: group code \"../../../escaped-group\" (22 characters) cannot name a file"))
        #expect(try entries(folder + "/rosters").count == 1 + groups - 2)
        #expect(try entries(folder + "/calendars") == ["all.ics", "calpoly.ics", "hancock.ics"])
        #expect(try entries(folder + "/data").count == Kind.allCases.count)
        #expect(try entries(folder + "/rides") == Self.upcomingRides)
        #expect(result.stdout.contains("wrote \(1 + groups - 2 + Kind.allCases.count + 3 + Self.upcomingRides.count) files"))
    }

    @Test("a time zone written by SQL that is no tz name: its calendars are skipped with the reason, the rest is written")
    func unknownZoneSkipsItsCalendars() throws {
        let database = try TestDatabase(importing: "central-coast")
        let connection = try database.connect()
        // PostgreSQL knows both names, so nothing stops SQL from writing them. The event is Cal Poly's only.
        try connection.script("""
            update campuses set timezone = 'posix/America/Los_Angeles' where code = 'calpoly';
            update events set timezone = 'localtime' where code = 'aia-beach-day';
            """)
        let groups = try database.count("select count(*) from community_groups")
        let out = try scratch.folder()

        let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(result.status == 1, "\(result.stderr)")
        let folder = out + "/latest"
        let errors = try manifestErrors(folder)
        #expect(errors.compactMap { $0["file"] as? String } == ["calendars/all.ics", "calendars/calpoly.ics"])
        let allError = errors.first?["error"] as? String ?? ""
        #expect(allError.contains("campus \"calpoly\" has time zone \"posix/America/Los_Angeles\""), "\(allError)")
        #expect(allError.contains("event \"aia-beach-day\" has time zone \"localtime\""), "\(allError)")
        #expect(result.stderr.contains("skipped calendars/calpoly.ics: campus \"calpoly\" has time zone \"posix/America/Los_Angeles\""))
        #expect(!FileManager.default.fileExists(atPath: folder + "/calendars/calpoly.ics"))

        let files = try manifest(folder)["files"] as! [[String: Any]]
        #expect(files.count == 1 + groups + Kind.allCases.count + 2 + Self.upcomingRides.count)
        for file in files {
            #expect(try sha256sum(folder + "/" + (file["file"] as! String)) == file["sha256"] as? String)
        }
        #expect(try entries(folder + "/calendars") == ["cuesta.ics", "hancock.ics"])

        let calendar = out + "/calpoly.ics"
        let single = try database.run(["export", "calendar", "--campus", "calpoly", "--out", calendar])
        #expect(single.status == 65, "\(single.stderr)")
        #expect(single.stderr.contains("posix/America/Los_Angeles"))
        #expect(!FileManager.default.fileExists(atPath: calendar))
    }

    @Test("--keep 2 with an older --date keeps the folder it wrote; latest stays on the newest")
    func olderDateIsKept() throws {
        let database = try LoadedDatabase.get()
        let out = try scratch.folder()
        for day in ["2026-11-21", "2026-11-22"] {
            #expect(try database.run(["nightly", "--out", out, "--keep", "2", "--date", day]).status == 0)
        }
        let redo = try database.run(["nightly", "--out", out, "--keep", "2", "--date", "2026-11-10"])
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(redo.stdout.contains("to \(out)/2026-11-10"))
        #expect(try entries(out) == ["2026-11-10", "2026-11-21", "2026-11-22", "latest"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/latest") == "2026-11-22")
        #expect(try manifest(out + "/2026-11-10")["date"] as? String == "2026-11-10")

        #expect(try database.run(["nightly", "--out", out, "--keep", "2", "--date", "2026-11-23"]).status == 0)
        #expect(try entries(out) == ["2026-11-22", "2026-11-23", "latest"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/latest") == "2026-11-23")
    }

    @Test("OUT/latest that is a real folder: exit 73 before anything is written or moved")
    func latestFolderIsRefused() throws {
        let database = try LoadedDatabase.get()
        let out = try scratch.folder()
        try writeFile(out + "/latest/notes.txt", "mine\n")

        let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("\(out)/latest: cannot write: exists and is not a symbolic link"), "\(result.stderr)")
        #expect(try entries(out) == ["latest"])
        #expect(try entries(out + "/latest") == ["notes.txt"])
        #expect(try String(contentsOfFile: out + "/latest/notes.txt", encoding: .utf8) == "mine\n")
    }

    @Test("partial folders and latest links of killed runs are removed once an hour old; a recent one is left")
    func staleLeftoversAreRemoved() throws {
        let database = try LoadedDatabase.get()
        let out = try scratch.folder()
        try writeFile(out + "/.2026-11-19.4242.partial/rosters/all.csv", "half\n")
        try writeFile(out + "/.2026-11-19.4343.partial/rosters/all.csv", "still being written\n")
        #expect(symlink("2026-11-19", out + "/.latest.4242") == 0)
        let twoHoursAgo = timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)
        for stale in [".2026-11-19.4242.partial", ".latest.4242"] {
            #expect(utimensat(AT_FDCWD, out + "/" + stale, [twoHoursAgo, twoHoursAgo], AT_SYMLINK_NOFOLLOW) == 0)
        }

        let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try entries(out) == [".2026-11-19.4343.partial", "2026-11-20", "latest"])
    }
}
