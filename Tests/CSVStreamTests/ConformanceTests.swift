import CSVStream
import CruBatchTestSupport
import Foundation
import Testing

/// The csv-spectrum suite, kept in csv-spectrum/ beside this file (see its README and LICENSE).
enum Spectrum {
    /// The csv-spectrum folder, found from this file's path.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("csv-spectrum")

    /// Every NAME with both csvs/NAME.csv and json/NAME.json.
    static let names: [String] = {
        let csvs = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("csvs").path)) ?? []
        return csvs.filter { $0.hasSuffix(".csv") }.map { String($0.dropLast(4)) }.filter {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("json/\($0).json").path)
        }.sorted()
    }()

    /// Cases where this reader deliberately disagrees with the suite, and the diagnostic it gives instead.
    struct Deviation: Sendable {
        var code: DiagnosticCode
        var line: Int
        var column: Int
        var reason: String
    }

    static let deviations: [String: Deviation] = [
        "location_coordinates": Deviation(
            code: .malformedCSV, line: 2, column: 2,
            reason: """
                its cells contain a bare " inside an unquoted cell (37°36'37.8"N); RFC 4180 forbids that and \
                CSVReader reports it as malformed-csv (stray quote). The stored JSON also contradicts its CSV \
                (a lone object, not an array, with phone 1234567890 where the CSV has 2095257564).
                """),
    ]
}

@Suite("csv-spectrum conformance")
struct ConformanceTests {
    @Test("the conformance folder holds the suite")
    func folderIsPopulated() {
        #expect(Spectrum.names.count >= 12, "found \(Spectrum.names.count) cases in \(Spectrum.folder.path)")
    }

    @Test("CSV reads as its JSON", arguments: Spectrum.names)
    func matchesJSON(name: String) throws {
        let csvPath = Spectrum.folder.appendingPathComponent("csvs/\(name).csv").path
        let outcome = try read(path: csvPath)

        if let deviation = Spectrum.deviations[name] {
            let error = try #require(outcome.error, "\(name) was expected to fail: \(deviation.reason)")
            #expect(error.code == deviation.code)
            #expect(error.line == deviation.line)
            #expect(error.column == deviation.column)
            return
        }

        #expect(outcome.error == nil, "\(outcome.error?.rendered ?? "")")
        let records = outcome.records
        let header = try #require(records.first, "\(name) has no header").fields
        let actual: [[String: String]] = records.dropFirst().map { record in
            #expect(record.fields.count == header.count, "line \(record.line) of \(name) has the wrong width")
            return Dictionary(zip(header, record.fields), uniquingKeysWith: { first, _ in first })
        }

        let jsonData = try Data(contentsOf: Spectrum.folder.appendingPathComponent("json/\(name).json"))
        let json = try JSONSerialization.jsonObject(with: jsonData)
        let objects = try #require(json as? [[String: Any]], "json/\(name).json is not an array of objects")
        let expected: [[String: String]] = try objects.map { object in
            try object.mapValues { value in try #require(value as? String, "a non-string value in \(name).json") }
        }
        #expect(actual == expected)
    }
}
