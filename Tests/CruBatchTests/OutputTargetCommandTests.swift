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

    /// Runs the binary under /bin/sh with its standard output redirected as `redirection` says.
    private func runRedirected(_ arguments: [String], _ redirection: String, database: TestDatabase) throws -> CommandResult {
        try CommandResult.run(["-c", "exec \"$0\" \"$@\" " + redirection, TestEnvironment.binary] + arguments,
                              executable: "/bin/sh", environment: ["DATABASE_URL": database.url])
    }

    @Test("a report that cannot be written to standard output (/dev/full, closed) is exit 73 with the reason, never a crash",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func reportToAFullOrClosedStandardOutput() throws {
        let database = try LoadedDatabase.get()
        for (redirection, reason) in [(">/dev/full", "No space left on device"), (">&-", "Bad file descriptor")] {
            for arguments in [["status"], ["runs"], ["status", "--format", "json"], ["migrate", "--status"]] {
                let result = try runRedirected(arguments, redirection, database: database)
                #expect(result.status == 73, "\(arguments) \(redirection): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("crubatch: standard output: cannot write: \(reason)"), "\(result.stderr)")
            }
        }
    }

    @Test("an import whose report cannot be written keeps its committed rows and says so, exit 73 (not a crash after the commit)",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func importToAFullStandardOutput() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            let file = folder + "/campuses.csv"
            try writeFile(file, "code,name,city,state\nfull-disk,Full Disk College,Fresno,CA\n")
            let result = try runRedirected(["import", "campuses", file], ">/dev/full", database: database)
            #expect(result.status == 73, "\(result.status) \(result.stderr)")
            #expect(result.stderr.contains("standard output: cannot write: No space left on device: the report is incomplete, but what the command did stands"),
                    "\(result.stderr)")
            #expect(try database.count("select count(*) from campuses where code = 'full-disk'") == 1)
            #expect(try database.count("select count(*) from import_runs where kind = 'campuses' and status = 'succeeded'") >= 1)
        }
    }

    @Test("an output that is an input, or another output, is refused (64) before anything is read or written")
    func outputsNeverReplaceInputs() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            let input = folder + "/v.csv"
            let original = try String(contentsOfFile: TestEnvironment.fixture("central-coast/campuses.csv"), encoding: .utf8)
            try writeFile(input, original)
            #expect(symlink(input, folder + "/link.csv") == 0)
            let answers = folder + "/answers.csv"
            try writeFile(answers, try String(contentsOfFile: TestEnvironment.fixture("get-involved/answers-small.csv"), encoding: .utf8))
            let cases: [([String], String)] = [
                (["validate", "campuses", input, "--report", input], "--report \(input) is the input file"),
                (["import", "campuses", input, "--rejects", input, "--dry-run"], "--rejects \(input) is the input file"),
                (["import", "campuses", input, "--rejects", folder + "/link.csv", "--dry-run"],
                 "--rejects \(folder)/link.csv is the input file \(input)"),
                (["import", "campuses", input, "--rejects", folder + "/../\((folder as NSString).lastPathComponent)/v.csv"], "is the input file"),
                (["import", "campuses", input, "--rejects", folder + "/x.xlsx", "--report", folder + "/x.xlsx", "--dry-run"],
                 "--rejects \(folder)/x.xlsx and --report \(folder)/x.xlsx are one file"),
                (["place", answers, "--report", answers, "--dry-run"], "--report \(answers) is the input file"),
            ]
            for (arguments, message) in cases {
                let result = try database.run(arguments)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
            #expect(try String(contentsOfFile: input, encoding: .utf8) == original)
            #expect(!FileManager.default.fileExists(atPath: folder + "/x.xlsx"))
        }
    }
}
