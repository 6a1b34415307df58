import CruBatchTestSupport
import Foundation
import Testing

/// Files made to break the readers: damaged workbooks, ZIP bombs, numbers past every range, files
/// whose name and bytes disagree. Each is refused with a located diagnostic and its exit status, in
/// bounded time and memory, and never crashes crubatch.
@Suite("hostile input files")
struct HostileInputTests {
    /// One line of fixtures/hostile/EXPECTED: `FILE<TAB>KIND<TAB>EXIT<TAB>CODE` (`-`: no diagnostic).
    struct Expectation: CustomTestStringConvertible, Sendable {
        let file: String
        let kind: String
        let exit: Int32
        let code: String?

        var testDescription: String { file }
    }

    static let corpus: [Expectation] = {
        let path = TestEnvironment.fixture("hostile/EXPECTED")
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return Expectation(file: fields[0], kind: fields[1], exit: Int32(fields[2]) ?? -1,
                               code: fields[3] == "-" ? nil : fields[3])
        }
    }()

    @Test("fixtures/hostile lists every file it holds")
    func corpusIsComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.fixture("hostile"))
            .filter { !["EXPECTED", "README.md", "make.py", "zipbomb.py"].contains($0) }
        #expect(Set(files) == Set(Self.corpus.map(\.file)))
    }

    @Test("validate --format json exits as EXPECTED says, with its code, and writes nothing", arguments: corpus)
    func corpusFile(_ expected: Expectation) throws {
        let database = try LoadedDatabase.get()
        let before = try database.tableCounts()
        let path = TestEnvironment.fixture("hostile/" + expected.file)
        let result = try database.run(["validate", expected.kind, path, "--format", "json"])
        #expect(result.status == expected.exit, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let codes = (document["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        if let code = expected.code {
            #expect(codes.contains(code), "\(result.stdout)")
        } else {
            #expect(codes.isEmpty, "\(result.stdout)")
        }
        #expect(try database.tableCounts() == before)
    }

    @Test("a sheet missing from its package stops validate and import with exit 65, naming the part")
    func missingSheet() throws {
        let database = try LoadedDatabase.get()
        let path = TestEnvironment.fixture("hostile/missing-sheet.xlsx")
        for command in ["validate", "import"] {
            // The database is shared: an import waits for another test's import of students.
            let result = try database.run([command, "students", path] + (command == "import" ? ["--wait"] : []))
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(path):Sheet1!1: error[malformed-workbook]: ")
                    && result.stderr.contains("the package has no part xl/worksheets/sheet1.xml"), "\(result.stderr)")
        }
    }

    @Test("a shared string index past the table names its cell instead of reading an empty one")
    func sharedStringOutOfRange() throws {
        let database = try LoadedDatabase.get()
        let path = TestEnvironment.fixture("hostile/shared-string-out-of-range.xlsx")
        let result = try database.run(["import", "students", path, "--wait"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):Sheet1!A3: error[malformed-workbook]: ")
                && result.stderr.contains("points at shared string 99, and the workbook has 6"), "\(result.stderr)")
        #expect(!result.stderr.contains("missing-value"))
    }

    @Test("a 1 MB workbook whose cell inflates to 1 GiB is field-too-long on that cell, at once")
    func zipBomb() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            let path = folder + "/students.xlsx"
            try Self.writeBomb(to: path, cell: 1 << 30)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 < 2 << 20)
            let started = Date()
            let result = try database.run(["import", "students", path, "--wait"])
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(result.status == 65)
            #expect(result.stderr.contains("\(path):Sheet1!B2: error[field-too-long]: the sheet cannot be read from "
                                           + "this cell on: a cell is longer than 1048576 bytes"), "\(result.stderr)")
            let json = try database.run(["validate", "students", path, "--format", "json"])
            #expect(json.status == 65)
            let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let diagnostic = try #require((document?["diagnostics"] as? [[String: Any]])?.first)
            #expect(diagnostic["code"] as? String == "field-too-long" && diagnostic["sheet"] as? String == "Sheet1"
                    && diagnostic["line"] as? Int == 2 && diagnostic["column"] as? Int == 2, "\(diagnostic)")
        }
    }

    @Test("a shared string longer than a cell may be is field-too-long on the cell that uses it")
    func oversizedSharedString() throws {
        let database = try LoadedDatabase.get()
        try withScratchDirectory { folder in
            let path = folder + "/students.xlsx"
            try Self.writeBomb(to: path, cell: 8 << 20, inSharedStrings: true)
            let result = try database.run(["validate", "students", path])
            #expect(result.status == 65)
            #expect(result.stderr.contains("\(path):Sheet1!B2: error[field-too-long]: "), "\(result.stderr)")
        }
    }

    /// A students workbook whose cell B2 holds `cell` bytes of `A`, inline or as a shared string,
    /// written by Python's zipfile from a stream (the file is about a thousandth of that).
    static func writeBomb(to path: String, cell: Int, inSharedStrings: Bool = false) throws {
        let script = try String(contentsOfFile: TestEnvironment.fixture("hostile/zipbomb.py"), encoding: .utf8)
        _ = try Python.run(script: script, arguments: [path, String(cell), inSharedStrings ? "shared" : "inline"])
    }

    @Test("a date in a 1904 workbook imports as the same day as in a 1900 one")
    func dateSystem1904() throws {
        try withScratchDirectory { folder in
            let from1904 = TestEnvironment.fixture("hostile/date1904.xlsx")
            let from1900 = folder + "/missions.xlsx"
            // The same sheet in the 1900 system: 2026-11-22 is serial 46348 there, 44886 in 1904's.
            _ = try Python.run(script: """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1]) as source, \\
                        zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as copy:
                    for name in source.namelist():
                        text = source.read(name).decode()
                        copy.writestr(name, text.replace(' date1904="1"', "").replace("44886", "46348"))
                """, arguments: [from1904, from1900])
            var exports: [String] = []
            for path in [from1904, from1900] {
                let database = try TestDatabase()
                let load = try database.run(["import", "missions", path])
                #expect(load.status == 0, "\(load.stderr)")
                exports.append(try database.run(["export", "missions"]).stdout)
            }
            #expect(exports[0].contains("hostile-mission,Hostile Mission,2026-11-22,2026-11-22,Here"), "\(exports[0])")
            #expect(exports[0] == exports[1])
        }
    }

    @Test("a UTF-16 CSV file is an encoding-error that says so (exit 65), not a guess at Windows-1252")
    func utf16CSV() throws {
        let database = try LoadedDatabase.get()
        let path = TestEnvironment.fixture("hostile/utf16-students.csv")
        let result = try database.run(["validate", "students", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):1: error[encoding-error]: the file is UTF-16 text"), "\(result.stderr)")
        #expect(!result.stderr.contains("Windows-1252"))
    }

    @Test("a Keystone dump whose first document nests 20,000 levels is refused (exit 65), never a crash of libbson's stack")
    func deeplyNestedDump() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            try HostileBSON.nested(levels: 20_000).write(to: URL(fileURLWithPath: folder + "/campuses.bson"))
            let before = try database.tableCounts()
            for options in [["--dry-run"], []] {
                let result = try database.run(["import", "--from", "keystone", folder] + options)
                #expect(result.status == 65, "\(result.status) \(result.stderr)")
                #expect(result.stderr.contains("campuses.bson:1: document 1 nests documents or arrays more than 100 levels deep"),
                        "\(result.stderr)")
            }
            #expect(try database.tableCounts() == before)
        }
    }

    @Test("text in a Keystone dump that is not UTF-8 is refused naming the document and field, never stored as U+FFFD")
    func latin1InADump() throws {
        let database = try TestDatabase(importing: "central-coast")
        try withScratchDirectory { folder in
            let campus = HostileBSON.document([HostileBSON.string("name", Array("Caf".utf8) + [0xE9, 0x20, 0x50]),
                                               HostileBSON.string("slug", Array("cafe".utf8))])
            try campus.write(to: URL(fileURLWithPath: folder + "/campuses.bson"))
            let before = try database.tableCounts()
            let result = try database.run(["import", "--from", "keystone", folder])
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("campuses.bson:1: document 1: name holds text that is not UTF-8"), "\(result.stderr)")
            #expect(try database.tableCounts() == before)
            #expect(try database.count("select count(*) from campuses where name like '%\u{FFFD}%'") == 0)
        }
    }
}
