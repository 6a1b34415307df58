import CruBatchTestSupport
import Foundation
import Testing

/// The type of what is at `path` itself: a link is not followed.
private func fileType(_ path: String) -> mode_t {
    var info = stat()
    #expect(lstat(path, &info) == 0, "\(path)")
    return info.st_mode & S_IFMT
}

@Suite("--out targets")
struct OutputTargetCommandTests {
    @Test("--out on a named pipe writes through to its reader; the pipe stays")
    func namedPipe() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            let fifo = folder + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            let reader = try BackgroundCommand([fifo], executable: "/bin/cat")

            let result = try database.run(["export", "groups", "--out", fifo])
            // A pipe replaced by a file leaves its reader waiting for ever: stop it after a while.
            if !waitUntil(timeout: 10, condition: { !reader.isRunning }) { reader.killHard() }
            let received = try reader.finish().stdout
            #expect(result.status == 0, "\(result.stderr)")
            let expected = try database.run(["export", "groups", "--out", "-"]).stdout
            #expect(received == expected)
            #expect(expected.hasPrefix("code,ministry,name,"))
            #expect(fileType(fifo) == S_IFIFO)
        }
    }

    @Test("--out on a symbolic link replaces the file it points to, beside that file; the link stays")
    func symbolicLink() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            try writeFile(folder + "/real/roster.csv", "old\n")
            try FileManager.default.createDirectory(atPath: folder + "/links", withIntermediateDirectories: true)
            #expect(symlink("../real/roster.csv", folder + "/links/roster.csv") == 0)

            let result = try database.run(["export", "roster", "--group", "cp-small-tue", "--for", "machines",
                                           "--out", folder + "/links/roster.csv"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(fileType(folder + "/links/roster.csv") == S_IFLNK)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/links/roster.csv") == "../real/roster.csv")
            let text = try String(contentsOfFile: folder + "/real/roster.csv", encoding: .utf8)
            #expect(text.hasPrefix("group_code,group_name,"))
            #expect(try FileManager.default.attributesOfItem(atPath: folder + "/real/roster.csv")[.posixPermissions] as? Int == 0o600)
            // No temporary file left beside the link or beside the file.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/real") == ["roster.csv"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/links") == ["roster.csv"])
        }
    }

    @Test("--out /dev/full: exit 73, No space left on device, and /dev/full is still the device",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func devFull() throws {
        let database = try LoadedDatabase.get()
        let result = try database.run(["export", "groups", "--out", "/dev/full"])
        #expect(result.status == 73)
        #expect(result.stderr.contains("/dev/full: cannot write: No space left on device"), "\(result.stderr)")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    @Test("--out - is standard output, for the calendar too")
    func standardOutput() throws {
        let database = try LoadedDatabase.get()
        let result = try database.run(["export", "calendar", "--campus", "calpoly", "--out", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(result.stderr.isEmpty)
    }
}
