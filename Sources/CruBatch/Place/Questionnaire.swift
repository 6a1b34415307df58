import CSVStream
import Foundation
import SpreadsheetReader

/// A question of the "Get Involved" questionnaire, i.e. a column of its export.
public enum PlaceField: String, CaseIterable, Sendable, Codable {
    case timestamp
    /// The whole name in one column ("Name"); split into first and last name as `FullName` reads it.
    case name
    case firstName = "first_name"
    case lastName = "last_name"
    case email, phone, sex
    case schoolYear = "school_year"
    case campus, ministries, availability

    /// Header names recognised exactly (compared lower case, letters and digits only): the names of
    /// the students.csv column the question fills, then the questionnaire's own.
    var aliases: [String] {
        let column = KindCatalog.students.columns.first { $0.name == rawValue && studentColumn }
        return (column.map { [$0.name] + $0.aliases } ?? []) + questionTitles
    }

    /// The question fills the students.csv column of its name.
    private var studentColumn: Bool {
        switch self {
        case .firstName, .lastName, .email, .phone, .sex, .schoolYear, .campus, .ministries: true
        case .timestamp, .name, .availability: false
        }
    }

    /// Names only a questionnaire gives its columns, including the question titles of the Google
    /// Forms export in fixtures/get-involved.
    private var questionTitles: [String] {
        switch self {
        case .timestamp: ["timestamp", "submitted", "submitted at", "submission time", "date"]
        case .name: ["name", "full name", "your name", "what is your name?", "what's your name?", "student"]
        case .firstName: ["what is your first name?"]
        case .lastName: ["what is your last name?"]
        case .email: ["your email", "what is your email address?"]
        case .phone: ["what is your phone number?"]
        case .sex: ["what is your sex?", "are you male or female?"]
        case .schoolYear: ["what year are you in school?", "class standing", "grade"]
        case .campus: ["college", "university", "which campus do you attend?", "what school do you attend?"]
        case .ministries: ["ministry", "which ministries are you interested in?",
                           "which ministry are you interested in?", "ministries of interest"]
        case .availability: ["availability", "available", "free time", "when are you free to meet each week?",
                             "when are you free?", "when are you available?"]
        }
    }

    /// Fragments that identify a long question title the aliases do not list, tried in
    /// `PlaceField.fallbackOrder` order ("What year are you in school?" is a year before it is a school).
    var keywords: [String] {
        switch self {
        case .availability: ["free", "availab", "whencan", "meeteach"]
        case .ministries: ["ministr"]
        case .schoolYear: ["yearinschool", "schoolyear", "whatyear", "classyear", "yearofstudy"]
        case .campus: ["campus", "school", "college", "university"]
        case .email: ["email", "mailaddress"]
        case .phone: ["phone", "mobile", "cellnumber"]
        case .sex: ["gender", "sex"]
        case .firstName: ["firstname", "givenname"]
        case .lastName: ["lastname", "surname", "familyname"]
        case .name: ["name"]
        case .timestamp: ["timestamp"]
        }
    }

    static let fallbackOrder: [PlaceField] = [.availability, .ministries, .schoolYear, .campus, .email, .phone, .sex,
                                              .firstName, .lastName, .name, .timestamp]

    /// The field named on the command line (`availability`, `school_year`, `school-year`, `year`...).
    public init?(argument: String) {
        let key = Self.key(argument)
        guard let field = Self.allCases.first(where: { Self.key($0.rawValue) == key })
                ?? Self.allCases.first(where: { $0.aliases.map(Self.key).contains(key) }) else { return nil }
        self = field
    }

    /// The form headers are compared in: lower case, letters and digits only.
    static func key(_ text: String) -> String {
        String(String.UnicodeScalarView(CellNormalizer.trimmedNFC(text).lowercased().unicodeScalars.filter {
            CharacterSet.alphanumerics.contains($0)
        }))
    }

    public static var acceptedList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Which column of the export answers which question.
struct QuestionnaireHeader {
    let indexes: [PlaceField: Int]
    let warnings: [Diagnostic]

    /// Matches `--map` titles first, then the built-in names, then keywords of long question titles.
    /// Throws `missing-column` (a required question, or a `--map` title not in the header) or
    /// `duplicate-header` (two columns answering one question).
    init(header: [String], overrides: [PlaceField: String], file: String) throws(Diagnostic) {
        var indexes: [PlaceField: Int] = [:]
        var used = Set<Int>()
        for field in PlaceField.allCases {
            guard let title = overrides[field] else { continue }
            let wanted = PlaceField.key(title)
            guard let position = header.indices.first(where: { !used.contains($0) && PlaceField.key(header[$0]) == wanted }) else {
                throw Diagnostic(file: file, line: 1, code: .missingColumn,
                                 message: "--map \(field.rawValue)=\"\(title)\": the header has no column \"\(title)\"",
                                 hint: "the header is: \(header.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            indexes[field] = position
            used.insert(position)
        }
        // Built-in names.
        for (position, title) in header.enumerated() where !used.contains(position) {
            let key = PlaceField.key(title)
            guard let field = PlaceField.allCases.first(where: { $0.aliases.map(PlaceField.key).contains(key) }) else { continue }
            if overrides[field] != nil { continue }
            if let earlier = indexes[field] {
                throw Diagnostic(file: file, line: 1, column: position + 1, code: .duplicateHeader,
                                 message: "columns \"\(header[earlier])\" and \"\(title)\" both answer \(field.rawValue)",
                                 hint: "choose one with --map \(field.rawValue)=\"\(header[earlier])\", or delete the other column")
            }
            indexes[field] = position
            used.insert(position)
        }
        // Long question titles, by keyword, for questions still unanswered.
        var warnings: [Diagnostic] = []
        for (position, title) in header.enumerated() where !used.contains(position) {
            let key = PlaceField.key(title)
            if let field = PlaceField.fallbackOrder.first(where: { field in
                indexes[field] == nil && field.keywords.contains { key.contains($0) }
            }) {
                indexes[field] = position
                used.insert(position)
            } else {
                warnings.append(Diagnostic(
                    file: file, line: 1, column: position + 1, code: .unknownColumn,
                    message: "column \"\(title)\" is not a question crubatch place uses and is ignored",
                    hint: "if it is one, map it: --map FIELD=\"\(title)\" (FIELD: \(PlaceField.acceptedList))"))
            }
        }
        // Whole names are only read when first and last names are not both there.
        if indexes[.firstName] != nil && indexes[.lastName] != nil { indexes[.name] = nil }
        var missing = [PlaceField.email, .sex, .schoolYear, .campus, .ministries, .availability].filter { indexes[$0] == nil }
        if indexes[.name] == nil {
            missing += [PlaceField.firstName, .lastName].filter { indexes[$0] == nil }
        }
        if !missing.isEmpty {
            let names = missing.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw Diagnostic(file: file, line: 1, code: .missingColumn,
                             message: "no column answers \(names)",
                             hint: "map each to its question title, e.g. --map availability=\"When are you free to meet each week?\"")
        }
        self.indexes = indexes
        self.warnings = warnings
    }
}

/// One answer as read from the file, normalised, with every problem found without the database.
struct QuestionnaireAnswer: Sendable {
    let line: Int
    /// The email as typed (trimmed, lower case), for the report even when it is invalid.
    var emailText = ""
    var emailColumn: Int?
    var email: String?
    var firstName: String?
    var lastName: String?
    var phone: String?
    var sex: String?
    /// 1-5; nil when the answer gives none (`Transfer`, `Class of 2028`): then only groups open to
    /// every year take the student.
    var schoolYear: Int?
    /// From `Class of 2028`.
    var gradYear: Int?
    var campusText = ""
    var campusColumn: Int?
    /// The ministries cell as written (split by `Placer` against the known names).
    var ministriesText = ""
    var ministriesColumn: Int?
    var availabilityText = ""
    var availabilityColumn: Int?
    /// Nil until `readAvailabilities` has parsed it.
    var availability: Availability?
    /// Why `readAvailabilities` could not read the availability (a type-error), if it could not.
    var availabilityProblem: Diagnostic?
    var diagnostics: [Diagnostic] = []

    var name: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }
    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Reads a questionnaire export into answers: the whole file (questionnaires are small), so that a
/// file that cannot be read changes nothing and placement can go in file order.
struct QuestionnaireReader {
    let path: String
    let displayName: String
    let overrides: [PlaceField: String]
    let encoding: TextEncoding
    let sheet: String?

    struct Contents {
        var answers: [QuestionnaireAnswer] = []
        /// File-level warnings (unknown columns, blank rows).
        var warnings: [Diagnostic] = []
        /// The problem that makes the file unreadable, if any (exit 65).
        var fatal: Diagnostic?
        var sha256: String?
        /// The workbook sheet the answers were on; nil for CSV.
        var sheet: String?
    }

    /// Throws when the file cannot be opened (missing, not a workbook, no such sheet).
    func read() throws -> Contents {
        var contents = Contents()
        do {
            let table = try TableFile.open(path: path, options: CSVReader.Options(displayName: displayName, encoding: encoding),
                                           sheet: sheet)
            contents.sheet = table.sheet
            let header = try QuestionnaireHeader(header: table.header, overrides: overrides, file: displayName)
            contents.warnings += table.takeWarnings() + header.warnings
            let rows = try Self.rows(of: table, warnings: &contents.warnings)
            contents.sha256 = table.sha256Hex
            // Each row is read on its own, so the rows are split over the cores.
            let file = displayName
            contents.answers = Concurrently.parts(of: rows.count) { part in
                rows[part].map { row in
                    var reader = AnswerReader(row: row, header: header, file: file)
                    return reader.read()
                }
            }.flatMap { $0 }
        } catch let unreadable as Diagnostic {
            contents.fatal = unreadable
        }
        return contents
    }

    /// Every row of the table; the table's warnings are added to `warnings`.
    private static func rows(of table: any TableReader, warnings: inout [Diagnostic]) throws -> [TableRow] {
        var rows: [TableRow] = []
        while let row = try table.next() {
            rows.append(row)
            warnings += table.takeWarnings()
        }
        warnings += table.takeWarnings()
        return rows
    }
}

/// Reads one row of the questionnaire into an answer, a question at a time, noting each problem.
private struct AnswerReader {
    let row: TableRow
    let header: QuestionnaireHeader
    let file: String
    var answer: QuestionnaireAnswer

    init(row: TableRow, header: QuestionnaireHeader, file: String) {
        self.row = row
        self.header = header
        self.file = file
        answer = QuestionnaireAnswer(line: row.line)
        answer.diagnostics += row.problems
    }

    /// The answer, its availability as written (`readAvailabilities` parses it).
    mutating func read() -> QuestionnaireAnswer {
        answer.emailText = cell(.email)?.text.lowercased() ?? ""
        answer.emailColumn = cell(.email)?.column
        answer.email = value(.email, as: .email, required: true)
        readName()
        answer.phone = value(.phone, as: .phone, required: false)
        answer.sex = value(.sex, as: .personSex, required: true)
        let year = reading(.schoolYear, as: .schoolYear, required: true)
        answer.schoolYear = year.value.flatMap { Int($0) }
        answer.gradYear = year.gradYear.flatMap { Int($0) }
        (answer.campusText, answer.campusColumn) = written(.campus, hint: "fill in the campus (name or code)")
        (answer.ministriesText, answer.ministriesColumn) = written(
            .ministries, hint: "fill in at least one ministry (name or code)",
            empty: { text in text.split { $0 == ";" || $0 == "," }.allSatisfy { $0.allSatisfy(\.isWhitespace) } })
        (answer.availabilityText, answer.availabilityColumn) = written(.availability, hint: AvailabilityError.hint)
        return answer
    }

    /// The first and last name, from their columns or split from the whole name.
    private mutating func readName() {
        guard header.indexes[.name] != nil, let (text, column) = cell(.name) else {
            answer.firstName = value(.firstName, as: .text, required: true)
            answer.lastName = value(.lastName, as: .text, required: true)
            return
        }
        do throws(CellProblem) {
            let name = try FullName.split(text)
            if name.first.isEmpty {
                problem(.name, column, .missingValue, "name is required but empty", hint: "fill in the student's name")
                return
            }
            answer.firstName = name.first
            answer.lastName = name.last
            if let warning = name.warning { problem(.name, column, warning.code, warning.message, hint: warning.hint) }
        } catch {
            problem(.name, column, error.code, error.message, hint: error.hint)
        }
    }

    /// The answer to a question a later step reads, as written, and its column: `Placer` matches the
    /// campus and splits the ministries, `readAvailabilities` parses the availability. An `empty` one
    /// (by default, a blank cell) is an error of the answer.
    private mutating func written(_ field: PlaceField, hint: String,
                                  empty: (String) -> Bool = \.isEmpty) -> (text: String, column: Int?) {
        guard let (text, column) = cell(field) else { return ("", nil) }
        if empty(text) {
            problem(field, column, .missingValue, "\(field.rawValue) is required but empty", hint: hint)
        }
        return (text, column)
    }

    private func cell(_ field: PlaceField) -> (text: String, column: Int)? {
        header.indexes[field].map { (CellNormalizer.trimmedNFC(row.cells[$0]), $0 + 1) }
    }

    private mutating func problem(_ field: PlaceField, _ column: Int, _ code: DiagnosticCode, _ message: String,
                                  hint: String?) {
        answer.diagnostics.append(Diagnostic(file: file, line: row.line, column: column, field: field.rawValue,
                                             code: code, message: message, hint: hint))
    }

    /// The cell read as `type`, its warning or its error noted, and a required one that is empty.
    private mutating func reading(_ field: PlaceField, as type: CellType, required: Bool) -> CellReading {
        guard let (text, column) = cell(field) else { return CellReading() }
        do throws(CellProblem) {
            let reading = try CellNormalizer.read(text, as: type)
            if let warning = reading.warning {
                problem(field, column, warning.code, "\(field.rawValue): \(warning.message)", hint: warning.hint)
            } else if reading.value == nil && reading.gradYear == nil && required {
                problem(field, column, .missingValue, "\(field.rawValue) is required but empty",
                        hint: "ask the student, or fill in the \(field.rawValue) cell")
            }
            return reading
        } catch {
            problem(field, column, error.code, "\(field.rawValue): \(error.message)", hint: error.hint)
            return CellReading()
        }
    }

    private mutating func value(_ field: PlaceField, as type: CellType, required: Bool) -> String? {
        reading(field, as: type, required: required).value
    }
}

extension QuestionnaireAnswer {
    /// Parses the availability of each answer that wrote one, in place: an unreadable one gets its
    /// type-error as `availabilityProblem`. Nothing else an answer holds depends on it, so `place`
    /// runs this while the server saves the students. The answers are split over the cores; texts
    /// repeat (checkboxes of a form), so each part parses a text once.
    static func readAvailabilities(of answers: inout [QuestionnaireAnswer], file: String) {
        let written = answers
        let parsed = Concurrently.parts(of: written.count) { part in
            var known: [String: Result<Availability, AvailabilityError>] = [:]
            return written[part].map { answer -> Result<Availability, AvailabilityError>? in
                guard !answer.availabilityText.isEmpty else { return nil }
                let result = known[answer.availabilityText]
                    ?? Result { () throws(AvailabilityError) in try Availability.parse(answer.availabilityText) }
                known[answer.availabilityText] = result
                return result
            }
        }.flatMap { $0 }
        for (index, result) in parsed.enumerated() {
            switch result {
            case .success(let availability)?:
                answers[index].availability = availability
            case .failure(let error)?:
                answers[index].availabilityProblem = Diagnostic(
                    file: file, line: answers[index].line, column: answers[index].availabilityColumn,
                    field: PlaceField.availability.rawValue, code: .typeError, message: error.description,
                    hint: AvailabilityError.hint)
            case nil:
                break
            }
        }
    }
}
