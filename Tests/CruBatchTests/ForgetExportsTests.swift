import CruBatchTestSupport
import Foundation
import PostgresClient
import SpreadsheetReader
import Testing

/// `crubatch forget EMAIL` reaching the dated folders that nightly keeps.
@Suite("forget in nightly exports")
struct ForgetExportsTests {
    private let scratch = ScratchDirectory()

    /// A student who rides in a paired car and has a current membership, given a first name and a
    /// phone no one else has (the fixtures share phones and names), in a database with the
    /// central-coast data and its rides paired.
    private func riderToForget() throws -> (database: TestDatabase, email: String, name: String, phone: String) {
        let database = try TestDatabase(importing: "central-coast")
        #expect(try database.run(["rides", "pair", "--event", "fall-retreat-2026", "--no-notify"]).status == 0)
        let connection = try database.connect()
        try connection.query("""
            update people p set phone = '+18055559876', first_name = 'Rylee' where p.id = (
                select p.id from people p
                where not p.is_leader and p.phone is not null
                and exists (select 1 from memberships m where m.person_id = p.id and m.status <> 'left')
                and exists (select 1 from ride_requests r join ride_pairings x on x.request_id = r.id
                            where r.passenger_id = p.id and x.ended_at is null)
                order by p.email limit 1)
            """)
        let person = try connection.query("""
            select email, first_name || ' ' || last_name, phone from people where phone = '+18055559876'
            """).texts[0]
        return (database, person[0]!, person[1]!, person[2]!)
    }

    /// Every regular file under `folder` (symbolic links not followed), as relative paths.
    private func files(under folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            var info = stat()
            return lstat(folder + "/" + $0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }.sorted()
    }

    /// A file's text: a workbook's cells (every sheet, tab-separated), anything else its bytes.
    private func text(of path: String) throws -> String {
        guard path.hasSuffix(".xlsx") else {
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        }
        var lines: [String] = []
        for sheet in try XLSXWorkbook(path: path).sheets {
            let reader = try XLSXTableReader(path: path, sheet: sheet.name)
            lines.append(reader.header.joined(separator: "\t"))
            while let row = try reader.next() { lines.append(row.originalCells.joined(separator: "\t")) }
        }
        return lines.joined(separator: "\n")
    }

    /// What in `out` still shows the person: `file: what` for each hit.
    private func traces(in out: String, email: String, name: String, phone: String) throws -> [String] {
        let national = "(\(phone.dropFirst(2).prefix(3))) \(phone.dropFirst(5).prefix(3))-\(phone.suffix(4))"
        let names = name.split(separator: " ")
        let adjacent = "\(names[0]),\(names[1])"
        return try files(under: out).flatMap { file -> [String] in
            let content = try text(of: out + "/" + file)
            return [("email", content.lowercased().contains(email)), ("name", content.contains(name)),
                    ("first,last", content.contains(adjacent)), ("phone", content.contains(phone.dropFirst())),
                    ("national phone", content.contains(national))].filter(\.1).map { "\(file): \($0.0)" }
        }
    }

    /// Each manifest's entries match their files' SHA-256 and sizes.
    private func expectManifestsMatch(_ out: String) throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: out)
        for folder in folders where !folder.hasPrefix(".") && folder != "latest" {
            let manifest = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(out)/\(folder)/manifest.json"))) as! [String: Any]
            for entry in manifest["files"] as! [[String: Any]] {
                let path = "\(out)/\(folder)/\(entry["file"] as! String)"
                #expect(try sha256sum(path) == entry["sha256"] as? String, "\(path): the manifest's SHA-256 is stale")
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == entry["bytes"] as? Int)
            }
        }
    }

    @Test("a forgotten leader's phone leaves the rosters' leader lists too, where a formula guard stands before it")
    func forgetLeaderInLeaderLists() throws {
        let database = try TestDatabase(importing: "central-coast")
        // A leader listed first in a group: a roster writes `'+1805...` for that list, as for any cell
        // a spreadsheet would run as a formula.
        let email = try database.connect().query("""
            update people p set phone = '+18055559877' where p.id = (
                select gl.person_id from group_leaders gl join people l on l.id = gl.person_id
                where l.phone is not null order by gl.position, l.email limit 1)
            returning email
            """).scalar(String.self)
        let out = try scratch.folder("exports")
        #expect(try database.run(["nightly", "--out", out, "--date", "2026-09-01"]).status == 0)
        let roster = "\(out)/2026-09-01/rosters/all.csv"
        try #require(try String(contentsOfFile: roster, encoding: .utf8).contains("'+18055559877"))

        let forget = try database.run(["forget", email, "--exports", out])
        #expect(forget.status == 0, "\(forget.stderr)")
        for file in files(under: out) {
            #expect(!(try text(of: out + "/" + file)).contains("8055559877"), "\(file) still holds the phone")
        }
        // A list's first item, replaced, is still guarded against running as a formula.
        let rewritten = try String(contentsOfFile: roster, encoding: .utf8)
        #expect(!rewritten.contains(",+1") && !rewritten.contains("\"+1"), "an unguarded phone placeholder")
        try expectManifestsMatch(out)
    }

    @Test("forget --exports removes the person from every kept nightly folder (CSV, workbooks) and updates manifests")
    func forgetCleansDatedFolders() throws {
        let (database, email, name, phone) = try riderToForget()
        let out = try scratch.folder("exports")
        #expect(try database.run(["nightly", "--out", out, "--date", "2026-09-01"]).status == 0)
        #expect(try database.run(["nightly", "--out", out, "--date", "2026-09-02", "--rosters", "xlsx"]).status == 0)
        let before = try traces(in: out, email: email, name: name, phone: phone)
        for expected in ["2026-09-01/rosters/all.csv: email", "2026-09-01/data/students.csv: phone",
                         "2026-09-01/rides/fall-retreat-2026.csv: first,last", "2026-09-02/rosters/all.xlsx: email"] {
            #expect(before.contains(expected), "the test needs \(expected) before forget")
        }
        let students = "\(out)/2026-09-01/data/students.csv"
        let studentsBefore = try String(contentsOfFile: students, encoding: .utf8)
        let rosterRows = try database.count("select count(*) from memberships where status <> 'left'")

        let forget = try database.run(["forget", email, "--exports", out, "--format", "json"])
        #expect(forget.status == 0, "\(forget.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(forget.stdout.utf8)) as? [String: Any]
        let exports = try #require(document?["exports"] as? [String: Any])
        let rewritten = exports["rewritten"] as? [String] ?? []
        #expect(rewritten.contains("2026-09-01/rosters/all.csv") && rewritten.contains("2026-09-02/data/students.csv"))
        #expect(rewritten.contains("2026-09-01/rides/fall-retreat-2026.csv"))
        #expect((exports["removed"] as? [String] ?? []).contains("2026-09-02/rosters/all.xlsx"))
        #expect((exports["failures"] as? [String]) == [])

        #expect(try traces(in: out, email: email, name: name, phone: phone) == [])
        #expect(try traces(in: out + "/latest", email: email, name: name, phone: phone) == [])
        try expectManifestsMatch(out)
        // Everyone else's lines keep their bytes.
        let kept = studentsBefore.components(separatedBy: "\r\n").filter { !$0.lowercased().contains(email) }
        #expect(try String(contentsOfFile: students, encoding: .utf8) == kept.joined(separator: "\r\n"))
        let manifest = try String(contentsOfFile: "\(out)/2026-09-01/manifest.json", encoding: .utf8)
        #expect(manifest.contains("\"rows\" : \(rosterRows - 1)"), "the roster's row count is one lower")
        let workbookManifest = try String(contentsOfFile: "\(out)/2026-09-02/manifest.json", encoding: .utf8)
        #expect(workbookManifest.contains("\"file\" : \"rosters/all.xlsx\""))
        #expect(workbookManifest.contains("removed by forget"))
        // Nothing half-written is left behind.
        #expect(files(under: out).allSatisfy { !$0.split(separator: "/").last!.hasPrefix(".") })
        for file in files(under: out) {
            var info = stat()
            lstat(out + "/" + file, &info)
            #expect(info.st_mode & 0o777 == 0o600, "\(file)")
        }
    }

    @Test("forget without --exports cleans the folder the last nightly run wrote into")
    func forgetUsesRememberedFolder() throws {
        let (database, email, name, phone) = try riderToForget()
        let out = try scratch.folder("remembered")
        #expect(try database.run(["forget", "nobody@nowhere.edu"]).status == 1)
        #expect(try database.run(["nightly", "--out", out, "--date", "2026-09-01"]).status == 0)
        let forget = try database.run(["forget", email.uppercased()])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(forget.stdout.contains("nightly folder \(out): 1 dated folder checked"))
        #expect(forget.stdout.contains("rewrote 2026-09-01/rosters/all.csv"))
        #expect(try traces(in: out, email: email, name: name, phone: phone) == [])
        try expectManifestsMatch(out)
    }

    @Test("forget whose export rewrite fails keeps the erasure, leaves the file whole and exits 73 saying so")
    func forgetExportFailure() throws {
        let (database, email, _, _) = try riderToForget()
        let out = try scratch.folder("failing")
        #expect(try database.run(["nightly", "--out", out, "--date", "2026-09-01"]).status == 0)
        // Permissions do not stop root, so the rewrite is made to fail by a name too long for the
        // temporary file beside it.
        let long = "\(out)/2026-09-01/rosters/\(String(repeating: "r", count: 240)).csv"
        try FileManager.default.copyItem(atPath: "\(out)/2026-09-01/rosters/all.csv", toPath: long)
        let original = try sha256sum(long)

        let forget = try database.run(["forget", email, "--exports", out])
        #expect(forget.status == 73)
        #expect(forget.stderr.contains("erased from the database, but some nightly export files could not be cleaned"))
        #expect(forget.stdout.contains("NOT CLEANED 2026-09-01/rosters/rrrr"))
        #expect(forget.stdout.contains("rewrote 2026-09-01/rosters/all.csv"))
        #expect(try sha256sum(long) == original)
        #expect(files(under: out).allSatisfy { !$0.split(separator: "/").last!.hasPrefix(".") })
        #expect(try database.count("select count(*) from people where lower(email) = \(email)") == 0)
        #expect(try database.run(["forget", email]).status == 1)
    }
}
