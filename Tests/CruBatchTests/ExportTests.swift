import CSVStream
import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

@Suite("export and nightly")
struct ExportTests {
    private let scratch = ScratchDirectory()

    /// Exports every kind into the scratch folder `name`; that folder's path.
    private func exportAll(_ database: TestDatabase, into name: String) throws -> String {
        let folder = try scratch.folder(name)
        for kind in Kind.allCases {
            let result = try database.run(["export", kind.rawValue, "--out", "\(folder)/\(kind.fileName)"])
            #expect(result.status == 0, "\(kind): \(result.stderr)")
        }
        return folder
    }

    @Test("round trip: export, import into the same and into a fresh database, export again: identical bytes")
    func roundTrip() throws {
        let source = try LoadedDatabase.get()
        let first = try exportAll(source, into: "first")

        let again = try source.run(["import", "--dir", first, "--dry-run", "--format", "json", "--wait"])
        let report = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any]
        for file in report["files"] as! [[String: Any]] {
            #expect(file["would_insert"] as? Int == 0 && file["would_update"] as? Int == 0 && file["inserted"] == nil, "\(file)")
        }

        let fresh = try TestDatabase()
        let load = try fresh.run(["import", "--dir", first])
        #expect(load.status == 0, "\(load.stderr)")
        let second = try exportAll(fresh, into: "second")
        for kind in Kind.allCases {
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(first)/\(kind.fileName)"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(second)/\(kind.fileName)"))
            #expect(a == b, "\(kind.fileName) differs after the round trip")
            #expect(a.count > 40, "\(kind.fileName) is suspiciously small")
        }
        let groups = try String(contentsOfFile: "\(first)/groups.csv", encoding: .utf8)
        #expect(groups.hasPrefix("code,ministry,name,day,time,location,audience,sex,capacity,leaders,description,first_meeting,last_meeting\r\n"))
        #expect(!groups.replacingOccurrences(of: "\r\n", with: "").contains("\n") || groups.contains("\""))
        let mode = try FileManager.default.attributesOfItem(atPath: "\(first)/students.csv")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a roster cell that Excel would run as a formula is neutralised")
    func csvInjection() throws {
        let database = try TestDatabase(importing: "central-coast")
        let folder = try scratch.folder()
        try scratch.writeFile("students.csv",
                              "email,first_name,last_name\nevil@example.edu,\"=HYPERLINK(\"\"http://x\"\")\",@SUM(A1)\n")
        try scratch.writeFile("memberships.csv", "group,email\ncp-small-tue,evil@example.edu\n")
        let load = try database.run(["import", "--dir", folder])
        #expect(load.status == 0, "\(load.stderr)")

        let roster = folder + "/roster.csv"
        let result = try database.run(["export", "roster", "--group", "cp-small-tue", "--for", "machines", "--out", roster])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: roster, encoding: .utf8)
        #expect(text.contains(",\"'=HYPERLINK(\"\"http://x\"\")\",'@SUM(A1),evil@example.edu,"))
        #expect(!text.contains(",=HYPERLINK"))
        #expect(try FileManager.default.attributesOfItem(atPath: roster)[.posixPermissions] as? Int == 0o600)
        #expect(text.split(separator: "\r\n").count == 2)

        let json = try database.run(["export", "roster", "--group", "cp-small-tue", "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let group = (document["groups"] as! [[String: Any]])[0]
        #expect((group["members"] as! [[String: Any]]).count == 1)
        #expect((group["leaders"] as! [[String: Any]]).count == 2)
    }

    @Test("an unknown scope is a clear error")
    func unknownScope() throws {
        let database = try LoadedDatabase.get()
        let result = try database.run(["export", "roster", "--group", "nope"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("no group nope"))
    }

    @Test("nightly twice in one day, then --keep 2 over three days")
    func nightlyFolders() throws {
        let database = try LoadedDatabase.get()
        let out = try scratch.folder() + "/n"
        for _ in 0..<2 {
            let result = try database.run(["nightly", "--out", out, "--date", "2026-11-20"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["2026-11-20", "latest"])
        try checkManifest(out + "/latest")

        for day in ["2026-11-21", "2026-11-22"] {
            #expect(try database.run(["nightly", "--out", out, "--keep", "2", "--date", day]).status == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["2026-11-21", "2026-11-22", "latest"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/latest") == "2026-11-22")
    }

    private func checkManifest(_ folder: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let manifest = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let files = manifest["files"] as! [[String: Any]]
        let groups = try LoadedDatabase.get().count("select count(*) from community_groups")
        #expect(files.count == 1 + groups + Kind.allCases.count + 1 + 3 + NightlySafetyTests.upcomingRides.count)
        for file in files {
            let path = folder + "/" + (file["file"] as! String)
            #expect(try sha256sum(path) == file["sha256"] as? String, "\(path)")
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(size == file["bytes"] as? Int)
        }
        let all = files.first { $0["file"] as? String == "rosters/all.csv" }
        #expect(all?["rows"] as? Int == (try LoadedDatabase.get().count("select count(*) from memberships")))
    }

    @Test("nightly into a folder that cannot be created exits 73 and creates nothing")
    func nightlyUnwritable() throws {
        let database = try LoadedDatabase.get()
        let blocker = try scratch.writeFile("a-file", "not a folder")
        let result = try database.run(["nightly", "--out", blocker + "/exports"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains(blocker))
    }

    @Test("a disk that fills up in the middle of nightly leaves no new dated folder and the previous one untouched (exit 73)",
          .enabled(if: getuid() == 0, "mounting a tiny tmpfs needs root"))
    func nightlyDiskFull() throws {
        let database = try LoadedDatabase.get()
        // Size the disk from a real export so the first night fits and the second cannot.
        let probe = try scratch.folder("probe")
        #expect(try database.run(["nightly", "--out", probe, "--date", "2026-11-20"]).status == 0)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: probe + "/latest/manifest.json"))) as! [String: Any]
        let pages = (manifest["files"] as! [[String: Any]]).reduce(1) { $0 + (($1["bytes"] as! Int) + 4095) / 4096 }
        let mountPoint = try scratch.folder("disk")
        try runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=\(pages * 4096 * 3 / 2)", "tmpfs", mountPoint])
        defer { try? runTool("/bin/umount", [mountPoint]) }

        #expect(try database.run(["nightly", "--out", mountPoint, "--date", "2026-11-20"]).status == 0)
        let before = try sha256sum(mountPoint + "/2026-11-20/manifest.json")
        let result = try database.run(["nightly", "--out", mountPoint, "--date", "2026-11-21"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted() == ["2026-11-20", "latest"])
        #expect(try sha256sum(mountPoint + "/2026-11-20/manifest.json") == before)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: mountPoint + "/latest") == "2026-11-20")
    }

    private func runTool(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(path) \(arguments) failed")
    }
}

@Suite("calendar export")
struct CalendarExportTests {
    private let scratch = ScratchDirectory()

    @Test("every occurrence of a Tuesday 19:00 group in the exported .ics is a Tuesday at 19:00 local, across DST")
    func exportedGroupCalendar() throws {
        let database = try LoadedDatabase.get()
        let path = try scratch.folder() + "/cp.ics"
        let result = try database.run(["export", "calendar", "--campus", "calpoly", "--out", path])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(!bytes.indices.contains { bytes[$0] == 0x0A && ($0 == 0 || bytes[$0 - 1] != 0x0D) }, "bare LF")
        let output = try ICalendarOracle.expand(bytes)
        let rows = output.split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        #expect(!rows.contains { $0.first == "TZMISMATCH" })
        let tuesday = rows.filter { $0.first == "OCC" && $0[1] == "group-cp-small-tue@crubatch.cru.org" }
        #expect(tuesday.count >= 25)
        for occurrence in tuesday {
            #expect(occurrence[3] == "Tue" && occurrence[4] == "19:00", "\(occurrence)")
        }
        #expect(Set(tuesday.map { $0[5] }) == ["-07:00", "-08:00"])
        #expect(rows.contains { $0.first == "OCC" && $0[1].hasPrefix("event-") })
    }
}
