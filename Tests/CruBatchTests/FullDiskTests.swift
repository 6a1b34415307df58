import CruBatchTestSupport
import Foundation
import Testing

/// A small tmpfs mounted for one test: a disk that fills up. Mounting needs root, which the test
/// machines and CI run as; the folder is unmounted when the object goes.
private final class SmallDisk {
    let folder: String
    private let scratch = ScratchDirectory()

    init(kilobytes: Int) throws {
        folder = try scratch.folder("disk")
        let mount = try CommandResult.run(["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder],
                                          executable: "/bin/mount")
        guard mount.status == 0 else { throw TestSetupError("cannot mount a tmpfs (root needed): \(mount.stderr)") }
    }

    deinit {
        _ = try? CommandResult.run(["-l", folder], executable: "/bin/umount")
    }

    /// Fills the disk up to its last `leftKilobytes`.
    func fill(leaving leftKilobytes: Int) throws {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { throw TestSetupError("statvfs \(folder) failed") }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let filler = [UInt8](repeating: 0, count: max(free - leftKilobytes * 1024, 0))
        guard FileManager.default.createFile(atPath: folder + "/filler", contents: Data(filler)) else {
            throw TestSetupError("cannot fill \(folder)")
        }
    }

    /// Every path under the disk, relative to it.
    func contents() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
    }
}

@Suite("a full disk", .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
struct FullDiskTests {
    @Test("nightly on a disk that fills up: exit 73 naming the file, the previous night whole, no partial folder")
    func nightly() throws {
        let database = try TestDatabase(importing: "central-coast")
        // Room for one night's exports, not two.
        let disk = try SmallDisk(kilobytes: 700)
        let out = disk.folder + "/nightly"
        let first = try database.run(["nightly", "--out", out, "--date", "2026-11-24"])
        try #require(first.status == 0, "\(first.stderr)")
        let kept = try disk.contents()

        let second = try database.run(["nightly", "--out", out, "--date", "2026-11-25"])
        #expect(second.status == 73, "\(second.stderr)")
        #expect(second.stderr.contains("No space left on device"), "\(second.stderr)")
        #expect(try disk.contents() == kept, "the failed night left something behind")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/latest") == "2026-11-24")
        // The kept night is whole: every file as its manifest says.
        let manifest = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/latest/manifest.json"))) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count > 10)
        for file in files {
            let name = try #require(file["file"] as? String)
            #expect(try sha256sum(out + "/latest/" + name) == file["sha256"] as? String, "\(name)")
        }
    }

    @Test("export of every format to a full disk: exit 73 naming the file, nothing written, an older file untouched",
          arguments: [
              ["export", "students"], ["export", "roster", "--campus", "calpoly"],
              ["export", "roster", "--campus", "calpoly", "--format", "xlsx"],
              ["export", "calendar", "--campus", "calpoly"], ["export", "rides", "--event", "fall-retreat-2026"],
          ])
    func export(_ command: [String]) throws {
        let database = try TestDatabase(importing: "central-coast")
        let disk = try SmallDisk(kilobytes: 128)
        let target = disk.folder + "/export"
        try writeFile(target, "yesterday's file\n")
        try disk.fill(leaving: 2)
        let before = try disk.contents()

        let result = try database.run(command + ["--out", target])
        #expect(result.status == 73, "\(command): \(result.stderr)")
        #expect(result.stderr.contains("\(target): cannot write: No space left on device"), "\(result.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "yesterday's file\n")
        #expect(try disk.contents() == before, "a temporary file was left behind")
    }
}
