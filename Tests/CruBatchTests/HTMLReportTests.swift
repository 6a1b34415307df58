import CruBatchTestSupport
import Foundation
import Testing

/// `--report FILE.html`, checked in a real browser: Debian's headless Chromium loads the page and
/// dumps its DOM, which Python's HTML parser reads back; a screenshot is kept beside it.
@Suite("HTML report in a browser")
struct HTMLReportTests {
    private let scratch = ScratchDirectory()

    /// 5 errors of 3 codes on 4 rows, and cells with markup, an ampersand and quotes; the last row
    /// is good and changes a stored group's name and leaders.
    static let groups = """
        code,ministry,name,day,time,location,audience,sex,capacity,leaders,description
        cp-new-a,cru-calpoly,<script>alert(1)</script>,Funday,19:00,Library,mixed,mixed,10,ktanaka@calpoly.edu,Fine row
        cp-new-b,cru-calpoy,New B,Tuesday,19:00,Library,mixed,mixed,10,ktanaka@calpoly.edu,"Tom & ""Jerry's"" <b>"
        cp-new-c,cru-calpoly,New C,Wednesday,19:00,Library,mixed,mixed,-3,ktanaka@calpoly.edu,
        cp-new-d,cru-calpoly,New D,Blursday,19:00,Library,mixed,mixed,0,ktanaka@calpoly.edu,
        cp-fr-men-mon,cru-calpoly,Freshmen Men (Mon & Thu),Monday,19:00,"Yosemite Hall, Tower 3 lounge",freshmen,men,20,ktanaka@calpoly.edu,Walking through the Gospel of Mark.

        """

    static let chromium = "/usr/bin/chromium"

    /// Runs headless Chromium on `arguments`; its standard output.
    private func chromium(_ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            throw TestSetupError("\(Self.chromium) is missing: run the tests with scripts/test, which installs Debian's chromium")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.chromium)
        // No sandbox: the tests may run as root in a container, where Chromium's sandbox cannot start.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--user-data-dir=" + (try scratch.folder("chromium-profile"))] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "chromium \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test("each bad cell carries its class, code and message in the browser's DOM; markup, & and quotes from the sheet stay text; a screenshot is taken")
    func browserReadsTheReport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let file = try scratch.writeFile("groups.csv", Self.groups)
        let report = try scratch.folder() + "/report.html"

        let run = try database.run(["validate", "groups", file, "--report", report])
        #expect(run.status == 1, "\(run.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: report)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        for outside in ["<script", "src=", "href=", "<link", "@import", "url("] {
            #expect(!html.contains(outside), "the page needs nothing outside itself: \(outside)")
        }

        // The expected marks, from the same check as JSON: line, column, code and message of each error.
        let checked = try database.run(["validate", "groups", file, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
        let errors = try #require(document["diagnostics"] as? [[String: Any]]).filter { $0["severity"] as? String == "error" }
        #expect(errors.count == 5 && Set(errors.compactMap { $0["code"] as? String }).count == 3)

        let dom = try chromium(["--dump-dom", URL(fileURLWithPath: report).absoluteString])
        let parsed = try Python.run(script: """
            import sys, json
            from html.parser import HTMLParser
            class Cells(HTMLParser):
                def __init__(self):
                    super().__init__()
                    self.line = None; self.column = -1; self.cell = None; self.in_message = False
                    self.bad = []; self.texts = {}; self.scripts = 0
                def handle_starttag(self, tag, attrs):
                    attrs = dict(attrs)
                    if tag == "script": self.scripts += 1
                    if tag == "tr":
                        self.line = int(attrs["id"][5:]) if attrs.get("id", "").startswith("line-") else None
                        self.column = -1
                    if tag == "td" and self.line is not None:
                        self.column += 1
                        self.cell = {"line": self.line, "column": self.column, "class": attrs.get("class"),
                                     "code": attrs.get("data-code"), "text": "", "message": ""}
                    if tag == "div" and self.cell is not None and "message" in (attrs.get("class") or ""):
                        self.in_message = True
                def handle_endtag(self, tag):
                    if tag == "div": self.in_message = False
                    if tag == "td" and self.cell is not None:
                        if self.cell["class"] == "bad": self.bad.append(self.cell)
                        self.texts["%d:%d" % (self.cell["line"], self.cell["column"])] = self.cell["text"]
                        self.cell = None
                def handle_data(self, data):
                    if self.cell is not None:
                        self.cell["message" if self.in_message else "text"] += data
            parser = Cells()
            parser.feed(sys.stdin.read())
            print(json.dumps({"bad": parser.bad, "texts": parser.texts, "scripts": parser.scripts}))
            """, input: Data(dom.utf8))
        let cells = try #require(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: Any])
        let bad = try #require(cells["bad"] as? [[String: Any]])
        // Column 0 of a row is its line number, so the file's column N (from 1) is cell N.
        let marked = Set(bad.map { "\($0["line"] ?? ""):\($0["column"] ?? ""):\($0["code"] ?? "")" })
        let expected = Set(errors.map { "\($0["line"] ?? ""):\($0["column"] ?? ""):\($0["code"] ?? "")" })
        #expect(bad.count == 5 && marked == expected, "\(bad)")
        for error in errors {
            let cell = bad.first { "\($0["line"] ?? ""):\($0["column"] ?? "")" == "\(error["line"] ?? ""):\(error["column"] ?? "")" }
            let message = try #require(error["message"] as? String)
            #expect((cell?["message"] as? String)?.contains(message) == true, "\(String(describing: cell)) lacks \(message)")
        }
        let texts = try #require(cells["texts"] as? [String: String])
        #expect(cells["scripts"] as? Int == 0)
        #expect(texts["2:3"] == "<script>alert(1)</script>")
        #expect(texts["3:11"] == "Tom & \"Jerry's\" <b>")
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // The good row's change, old and new side by side.
        #expect(dom.contains("<td class=\"old\">Freshmen Men (Monday)</td><td class=\"new\">Freshmen Men (Mon &amp; Thu)</td>"))
        // People appear only as the file has them: the leader the file drops is not named.
        #expect(dom.contains("<td class=\"old\">(stored value not shown)</td><td class=\"new\">ktanaka@calpoly.edu</td>"))
        #expect(!html.contains("rrogers@calpoly.edu"))

        let screenshot = try scratch.folder() + "/report.png"
        _ = try chromium(["--screenshot=" + screenshot, "--window-size=1400,1100", URL(fileURLWithPath: report).absoluteString])
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(png.count) bytes")
    }

    /// The bad cells of a report, `line:column:code` (column 0 is the line number, so a file's
    /// column N is cell N), as Python's HTML parser reads them.
    private func markedCells(_ html: String) throws -> Set<String> {
        let output = try Python.run(script: """
            import sys
            from html.parser import HTMLParser
            class Cells(HTMLParser):
                line = None; column = -1
                def handle_starttag(self, tag, attrs):
                    attrs = dict(attrs)
                    if tag == "tr":
                        self.line = attrs.get("id", "")[5:] if attrs.get("id", "").startswith("line-") else None
                        self.column = -1
                    if tag == "td" and self.line is not None:
                        self.column += 1
                        if attrs.get("class") == "bad": print("%s:%d:%s" % (self.line, self.column, attrs.get("data-code")))
            Cells().feed(sys.stdin.read())
            """, input: Data(html.utf8))
        return Set(output.split(separator: "\n").map(String.init))
    }

    @Test("place --report marks each bad answer's cells as place's own diagnostics locate them, and lists the placements")
    func placeReport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let answers = TestEnvironment.fixture("get-involved/answers.csv")
        let report = try scratch.folder() + "/place.html"
        let run = try database.run(["place", answers, "--dry-run", "--report", report])
        #expect(run.status == 1, "\(run.stderr)")
        let json = try database.run(["place", answers, "--dry-run", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let errors = try #require(document["diagnostics"] as? [[String: Any]])
            .filter { $0["severity"] as? String == "error" && $0["column"] != nil }
        #expect(!errors.isEmpty)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(try markedCells(html) == Set(errors.map { "\($0["line"] ?? ""):\($0["column"] ?? ""):\($0["code"] ?? "")" }))
        let placed = try #require(document["counts"] as? [String: Any])["placed"] as? Int
        #expect(html.components(separatedBy: "<ul class=\"inserted\">").count == 2 && (placed ?? 0) > 0)
    }

    @Test("rides pair --report lists each new pairing by its ids and names nobody (no file gave the names)")
    func ridesPairReport() throws {
        let database = try TestDatabase(importing: "central-coast")
        let report = try scratch.folder() + "/rides.html"
        let run = try database.run(["rides", "pair", "--dry-run", "--report", report])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        let json = try database.run(["rides", "pair", "--dry-run", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let pairings = try #require(document["pairings"] as? [[String: Any]])
        #expect(!pairings.isEmpty)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        for pairing in pairings {
            #expect(html.contains("request \(pairing["request"] ?? "") rides with offer \(pairing["offer"] ?? "")"))
            for person in ["passenger", "driver"] {
                let contact = try #require(pairing[person] as? [String: Any])
                for field in ["name", "email"] {
                    let value = try #require(contact[field] as? String)
                    #expect(!html.contains(value), "\(person) \(field) in the report")
                }
            }
        }
    }

    @Test("a page shows 1,000 bad rows of a file and sends every bad row to a rejects file: beside it, or the --rejects one")
    func boundedPage() throws {
        let database = try LoadedDatabase.get()
        let folder = try scratch.folder("bounded")
        var text = "email,first_name,last_name,phone\n"
        for index in 0..<2_500 { text += "bounded\(index)@example.edu,First,Last,555-01\n" }
        let file = try scratch.writeFile("bounded/students.csv", text)
        let page = folder + "/preview.html"
        let result = try database.run(["validate", "students", file, "--report", page])
        #expect(result.status == 1, "\(result.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<tr id=\"line-").count - 1 == 1_000)
        #expect(html.contains("... and 1500 more bad rows, every bad row with its errors in \(folder)/preview-rejects.csv"), "\(html.suffix(2000))")
        let rejects = try String(contentsOfFile: folder + "/preview-rejects.csv", encoding: .utf8)
        #expect(rejects.split(separator: "\r\n").count == 2_501)
        #expect(rejects.contains("bounded2499@example.edu,First,Last,555-01,2501,invalid-phone,"))
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/preview-rejects.csv")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let chosen = folder + "/fix-me.xlsx"
        let named = try database.run(["import", "students", file, "--dry-run", "--report", folder + "/second.html", "--rejects", chosen])
        #expect(named.status == 1, "\(named.stderr)")
        #expect(try String(contentsOfFile: folder + "/second.html", encoding: .utf8).contains("every bad row with its errors in \(chosen)"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/second-rejects.csv"))
    }
}
