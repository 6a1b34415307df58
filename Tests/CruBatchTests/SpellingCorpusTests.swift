import CSVStream
@testable import CruBatch
import CruBatchTestSupport
import Foundation
import Testing

/// fixtures/spellings/cells.csv: cell values as staff and students type them, each with the value
/// crubatch stores or the diagnostic code it gives, read by the same code import and place use.
@Suite("spellings corpus")
struct SpellingCorpusTests {
    /// One line of the corpus.
    struct Case: Sendable, CustomTestStringConvertible {
        let line: Int
        /// A cell type (`person-sex`, `list/email`, `date/dmy` ...), a kind of name (`campus`,
        /// `ministry@calpoly` for a student at calpoly, `group`), or `availability`.
        let type: String
        let input: String
        /// What is stored; empty when nothing is.
        let stored: String
        /// The diagnostic: an error code (nothing stored), `assumed-value` (a warning), or empty.
        let code: String
        /// The graduation year a school year cell gives (`Class of 2028`).
        let gradYear: String

        var testDescription: String { "line \(line): \(type) \"\(input)\"" }
        var expected: Reading { Reading(stored: stored, code: code, gradYear: gradYear) }
    }

    /// What crubatch made of an input, in the corpus's terms.
    struct Reading: Equatable, CustomStringConvertible {
        var stored = ""
        var code = ""
        var gradYear = ""

        var description: String { "stored \"\(stored)\", code \"\(code)\", grad_year \"\(gradYear)\"" }
    }

    static let cases: [Case] = (try? records("spellings/cells.csv").dropFirst().map { record in
        let field = record.fields
        return Case(line: record.line, type: field[0], input: field[1], stored: field[2], code: field[3], gradYear: field[4])
    }) ?? []

    @Test("each value reads as the corpus says", arguments: cases)
    func reads(_ entry: Case) throws {
        #expect(try Self.read(entry.input, as: entry.type) == entry.expected)
    }

    @Test("the corpus holds at least 300 values, among them every spelling of every vocabulary")
    func coverage() throws {
        #expect(Self.cases.count >= 300)
        for vocabulary in Vocabulary.allCases {
            let tried = Set(Self.cases.filter { Self.cellTypes[$0.type]?.vocabulary == vocabulary }.map { entry in
                // A phone's label is the part in parentheses.
                Vocabulary.key(vocabulary == .phoneLabel ? Self.parenthesised(entry.input) : entry.input)
            })
            for spelling in vocabulary.spellings {
                #expect(tried.contains(Vocabulary.key(spelling)), "\(vocabulary.rawValue): \"\(spelling)\" is not in the corpus")
            }
        }
    }

    @Test("the user guide's vocabulary lists every spelling of Vocabulary.table, and no vocabulary reads one key two ways")
    func guidePage() throws {
        let readme = try String(contentsOf: TestEnvironment.root.appendingPathComponent("docs/guide/file-formats.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Vocabulary"))
        let section = String(readme[start.upperBound...]).components(separatedBy: "\n## ")[0].lowercased()
        for vocabulary in Vocabulary.allCases {
            var seen: [String: String?] = [:]
            for term in vocabulary.terms {
                for spelling in term.spellings {
                    #expect(section.contains("`\(spelling.lowercased())`"), "docs/guide/file-formats.md: \(vocabulary.rawValue) \"\(spelling)\"")
                    let key = Vocabulary.key(spelling)
                    if let earlier = seen[key] { #expect(earlier == term.value, "\(vocabulary.rawValue): \(spelling) twice") }
                    seen[key] = term.value
                }
            }
        }
    }

    // MARK: Reading

    static let cellTypes: [String: CellType] = [
        "text": .text, "code": .code, "reference": .reference, "email": .email, "phone": .phone, "url": .url, "day": .day,
        "time": .time, "bool": .bool, "person-sex": .personSex, "group-sex": .groupSex, "audience": .audience,
        "school-year": .schoolYear, "grad-year": .gradYear, "staff-role": .staffRole, "membership-status": .membershipStatus,
        "resource-type": .resourceType, "positive-int": .positiveInt, "money": .money, "date": .date, "date-time": .dateTime,
        "timezone": .timezone, "date/dmy": .date, "date-time/dmy": .dateTime, "list/code": .list(.code),
        "list/email": .list(.email), "list/reference": .list(.reference), "list/text": .list(.text),
        "rideshare": .rideshare, "ride-direction": .rideDirection, "ride-offer-status": .rideOfferStatus,
        "ride-request-status": .rideRequestStatus, "seats": .seats, "latitude": .latitude, "longitude": .longitude,
        "postal-code": .postalCode,
    ]

    static func read(_ input: String, as type: String) throws -> Reading {
        if type == "availability" {
            do throws(AvailabilityError) {
                return Reading(stored: try Availability.parse(input).description)
            } catch {
                return Reading(code: DiagnosticCode.typeError.rawValue)  // as place reports it
            }
        }
        if let cellType = cellTypes[type] {
            do throws(CellProblem) {
                let reading = try CellNormalizer.read(input, as: cellType, dateOrder: type.hasSuffix("/dmy") ? .dmy : .mdy)
                return Reading(stored: reading.value ?? "", code: reading.warning?.code.rawValue ?? "",
                               gradYear: reading.gradYear ?? "")
            } catch {
                return Reading(code: error.code.rawValue)
            }
        }
        let parts = type.split(separator: "@").map(String.init)
        let matcher = try #require(try names[parts[0]], "unknown corpus type \(type)")
        switch matcher.match(input, scope: parts.count > 1 ? parts[1] : nil) {
        case .found(let candidate): return Reading(stored: candidate.code)
        case .ambiguous: return Reading(code: DiagnosticCode.ambiguousReference.rawValue)
        case .none: return Reading(code: DiagnosticCode.unknownReference.rawValue)
        }
    }

    /// The rows of fixtures/central-coast a name may refer to, by kind of name.
    static var names: [String: NameMatcher] {
        get throws {
            let campuses = try records("central-coast/campuses.csv").dropFirst()
            let ministries = try records("central-coast/ministries.csv").dropFirst()
            let groups = try records("central-coast/groups.csv").dropFirst()
            return [
                "campus": NameMatcher(campuses.map { .init(code: $0.fields[0], name: $0.fields[1]) }),
                "ministry": NameMatcher(ministries.map { .init(code: $0.fields[0], name: $0.fields[1], scope: $0.fields[2]) }),
                "group": NameMatcher(groups.map { .init(code: $0.fields[0], name: $0.fields[2]) }),
            ]
        }
    }

    /// The last part in parentheses (`cell` in `(805) 555-0107 (cell)`).
    static func parenthesised(_ text: String) -> String {
        guard let open = text.lastIndex(of: "("), let close = text[open...].firstIndex(of: ")") else { return "" }
        return String(text[text.index(after: open)..<close])
    }

    static func records(_ fixture: String) throws -> [CSVRecord] {
        let reader = try CSVReader(path: TestEnvironment.fixture(fixture))
        var records: [CSVRecord] = []
        while let event = try reader.next() {
            if case .record(let record) = event { records.append(record) }
        }
        return records
    }
}
