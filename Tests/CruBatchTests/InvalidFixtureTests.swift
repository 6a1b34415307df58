import CruBatchTestSupport
import CSVStream
import Foundation
import Testing

/// Every validation code has a folder in fixtures/invalid with one file (CSV, .xlsx for the workbook
/// codes, an .ics of events for malformed-calendar) and an `expected` file (exit, line, column, and
/// sheet for a workbook). Each is validated against a database holding central-coast.
@Suite("invalid fixtures")
struct InvalidFixtureTests {
    static let codes = DiagnosticCode.validationCodes.map(\.rawValue)

    @Test("every validation code has a fixture")
    func everyCodeHasAFixture() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.fixture("invalid"))
        for code in Self.codes { #expect(folders.contains(code), "no fixture for \(code)") }
    }

    @Test("validate reports the code on the expected line and column, and writes nothing", arguments: codes)
    func fixture(code: String) throws {
        let folder = TestEnvironment.fixture("invalid/\(code)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".csv") || $0.hasSuffix(".xlsx") || $0.hasSuffix(".ics") }
        let file = try #require(files.first)
        let kind = String(file[..<file.lastIndex(of: ".")!])
        var expected: [String: Int] = [:]
        var sheet: String?
        for line in try String(contentsOfFile: folder + "/expected", encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2 && parts[0] == "sheet" { sheet = String(parts[1]) }
            if parts.count == 2 { expected[String(parts[0])] = Int(parts[1]) }
        }
        let database = try LoadedDatabase.get()
        let before = try database.tableCounts()
        let path = folder + "/" + file
        let result = try database.run(["validate", kind, path])
        #expect(result.status == Int32(expected["exit"] ?? -1), "\(code): \(result.stderr)")
        let column = expected["column"].flatMap { $0 == 0 ? nil : $0 }
        let line = expected["line"] ?? -1
        // A workbook's rows are located as the spreadsheet names a cell: students.xlsx:Students!E3.
        let prefix = sheet.map { "\(path):\($0)!\(column.map(Diagnostic.columnLetters) ?? "")\(line): " }
            ?? "\(path):\(line)\(column.map { ":\($0)" } ?? ""): "
        let reported = result.stderr.split(separator: "\n").first { $0.contains("[\(code)]") }
        #expect(reported?.hasPrefix(prefix) == true, "\(code): expected \(prefix)… in\n\(result.stderr)")
        #expect(try database.tableCounts() == before)

        let json = try database.run(["validate", kind, path, "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let diagnostics = document?["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.contains {
            $0["code"] as? String == code && $0["line"] as? Int == expected["line"] && $0["sheet"] as? String == sheet
        })
    }
}
