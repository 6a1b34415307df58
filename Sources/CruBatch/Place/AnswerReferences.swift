import CSVStream
import PostgresClient

/// The campuses and ministries that questionnaire answers may name, matched by code or name as
/// `import` matches them (`NameMatcher`; a ministry's scope is its campus). A value each part of the
/// answers can take a copy of: its cache of what each text matched is its own.
struct AnswerReferences: Sendable {
    struct Campus: Sendable {
        let id: String
        let code: String
        let name: String
    }

    struct Ministry: Sendable {
        let id: String
        let code: String
        let name: String
        let campusID: String
    }

    let file: String
    private(set) var campuses: [Campus] = []
    private(set) var ministries: [Ministry] = []
    private var campusMatcher = NameMatcher([])
    private var ministryMatcher = NameMatcher([])
    /// What each text has matched so far, by scope and text: answers repeat the same few names.
    private var matched: [String: [String: NameMatcher.Match]] = [:]

    /// None yet (`load` reads them).
    init(file: String) {
        self.file = file
    }

    /// The campuses and ministries in use (not archived), for answers of `file`.
    static func load(connection: PostgresConnection, file: String) throws -> AnswerReferences {
        let campuses = try connection.query("select id, code, name from campuses where archived_at is null order by code").rows.map {
            Campus(id: try $0.decode(String.self, 0), code: try $0.decode(String.self, 1), name: try $0.decode(String.self, 2))
        }
        let ministries = try connection.query("""
            select mi.id, mi.code, mi.name, mi.campus_id from ministries mi join campuses c on c.id = mi.campus_id
            where \(unescaped: Retirement.archive.isCurrent(over: "mi")) and \(unescaped: Retirement.archive.isCurrent(over: "c"))
            order by mi.code
            """).rows.map {
            Ministry(id: try $0.decode(String.self, 0), code: try $0.decode(String.self, 1), name: try $0.decode(String.self, 2),
                     campusID: try $0.decode(String.self, 3))
        }
        var references = AnswerReferences(file: file)
        references.campuses = campuses
        references.ministries = ministries
        references.campusMatcher = NameMatcher(campuses.map { NameMatcher.Candidate(code: $0.code, name: $0.name) })
        let campusCodes = Dictionary(uniqueKeysWithValues: campuses.map { ($0.id, $0.code) })
        references.ministryMatcher = NameMatcher(ministries.map {
            NameMatcher.Candidate(code: $0.code, name: $0.name, scope: campusCodes[$0.campusID])
        })
        return references
    }

    /// A campus for a nil `scope`, else a ministry of the campus with that code.
    private mutating func match(_ text: String, scope: String?) -> NameMatcher.Match {
        if let known = matched[scope ?? "", default: [:]][text] { return known }
        let match = scope.map { ministryMatcher.match(text, scope: $0) } ?? campusMatcher.match(text)
        matched[scope ?? "", default: [:]][text] = match
        return match
    }

    /// Every campus, for an answer whose campus is unknown or ambiguous.
    private var campusHint: String {
        "write a campus name or code: " + campuses.map { "\($0.name) (\($0.code))" }.joined(separator: ", ")
    }

    /// The answer's campus and chosen ministries, by code or name, or unknown-reference and
    /// ambiguous-reference diagnostics added to `problems`.
    mutating func resolve(_ answer: QuestionnaireAnswer, problems: inout [Diagnostic]) -> (Campus?, [Ministry]) {
        guard !answer.campusText.isEmpty else { return (nil, []) }
        func problem(_ field: PlaceField, column: Int?, _ code: DiagnosticCode, _ message: String, hint: String) {
            problems.append(Diagnostic(file: file, line: answer.line, column: column, field: field.rawValue, code: code,
                                       message: message, hint: hint))
        }
        let campus: Campus
        switch match(answer.campusText, scope: nil) {
        case .found(let candidate):
            campus = campuses.first { $0.code == candidate.code }!
        case .ambiguous(let candidates):
            problem(.campus, column: answer.campusColumn, .ambiguousReference,
                    "campus \"\(answer.campusText)\" matches \(candidates.count): \(candidates.map(\.label).joined(separator: ", "))",
                    hint: campusHint)
            return (nil, [])
        case .none:
            let suggestion = campusMatcher.suggestion(for: answer.campusText)
            problem(.campus, column: answer.campusColumn, .unknownReference,
                    "campus \"\(answer.campusText)\" does not exist" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                    hint: campusHint)
            return (nil, [])
        }
        // The hints list every choice: built only for an answer that needs one.
        func ministriesHere() -> [Ministry] { ministries.filter { $0.campusID == campus.id } }
        func ministryHint() -> String {
            "ministries at \(campus.name): " + ministriesHere().map { "\($0.name) (\($0.code))" }.joined(separator: ", ")
        }
        var chosen: [Ministry] = []
        for part in answer.ministriesText.split(separator: ";").map({ CellNormalizer.trimmedNFC(String($0)) }) where !part.isEmpty {
            // A name may hold a comma; otherwise commas separate Google Forms checkboxes.
            let items = match(part, scope: campus.code) != .none ? [part]
                : part.split(separator: ",").map { CellNormalizer.trimmedNFC(String($0)) }.filter { !$0.isEmpty }
            for item in items {
                switch match(item, scope: campus.code) {
                case .found(let candidate):
                    let ministry = ministries.first { $0.code == candidate.code }!
                    if ministry.campusID == campus.id {
                        if !chosen.contains(where: { $0.id == ministry.id }) { chosen.append(ministry) }
                    } else if let other = campuses.first(where: { $0.id == ministry.campusID }) {
                        problem(.ministries, column: answer.ministriesColumn, .unknownReference,
                                "ministry \"\(item)\" is at \(other.name), not \(campus.name)", hint: ministryHint())
                    }
                case .ambiguous(let candidates):
                    problem(.ministries, column: answer.ministriesColumn, .ambiguousReference,
                            "ministry \"\(item)\" matches \(candidates.count): \(candidates.map(\.label).joined(separator: ", "))",
                            hint: ministryHint())
                case .none:
                    let suggestion = NameMatcher(ministriesHere().map { NameMatcher.Candidate(code: $0.code, name: $0.name) })
                        .suggestion(for: item)
                    problem(.ministries, column: answer.ministriesColumn, .unknownReference,
                            "ministry \"\(item)\" does not exist at \(campus.name)" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                            hint: ministryHint())
                }
            }
        }
        return (campus, chosen)
    }
}
