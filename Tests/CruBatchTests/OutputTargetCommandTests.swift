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
            let received = folder + "/received.csv"
            _ = FileManager.default.createFile(atPath: received, contents: nil)
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/cat")
            reader.arguments = [fifo]
            reader.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: received))
            try reader.run()

            let result = try database.run(["export", "groups", "--out", fifo])
            // A pipe replaced by a file leaves its reader waiting for ever: stop it after a while.
            let deadline = Date().addingTimeInterval(10)
            while reader.isRunning && Date() < deadline { usleep(10_000) }
            if reader.isRunning { kill(reader.processIdentifier, SIGKILL) }
            reader.waitUntilExit()
            #expect(result.status == 0, "\(result.stderr)")
            let expected = try database.run(["export", "groups", "--out", "-"]).stdout
            #expect(try String(contentsOfFile: received, encoding: .utf8) == expected)
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

            let result = try database.run(["export", "roster", "--group", "cp-small-tue", "--out", folder + "/links/roster.csv"])
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
