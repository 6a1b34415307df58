/// One problem found in an input file, located the way a compiler locates one:
/// file, physical line, 1-based cell (column), and a stable code staff can look up; with a note
/// when its cause lies elsewhere. In a workbook
/// the line is the sheet's row number and the location names the sheet and cell (`Sheet1!C14`).
public struct Diagnostic: Error, Sendable, Hashable, Encodable {
    /// How bad a problem is: errors reject a row or the file, warnings only inform.
    public enum Severity: String, Sendable, Encodable {
        case error, warning
    }

    public var file: String
    /// The workbook sheet the row is on; nil for a CSV file.
    public var sheet: String?
    public var line: Int
    /// 1-based cell number (spreadsheet column), or nil when the problem concerns a whole line or file.
    public var column: Int?
    /// The canonical column name, when known.
    public var field: String?
    public var code: DiagnosticCode
    public var severity: Severity
    public var message: String
    /// What to do about it, when something helps ("did you mean", accepted values, a flag).
    public var hint: String?
    /// The offending cell text, when showing it is safe (never personal data such as phones).
    public var value: String?
    /// For a row made from a database document rather than read from a line: the document and its
    /// field (`users/5a1f3a06...:phone`), which locate the problem instead of the file and line.
    public var document: String?
    /// Where the cause lies when it is elsewhere (the row this one names, refused above), shown as
    /// a `note:` line under the problem, as a compiler shows one.
    public var note: Note?

    /// A place and what was wrong there, that a problem refers to.
    public struct Note: Sendable, Hashable, Encodable {
        public var file: String
        public var line: Int
        public var message: String
        /// For a row made from a database document: the document, which locates the note instead.
        public var document: String?

        public init(file: String, line: Int, message: String, document: String? = nil) {
            (self.file, self.line, self.message, self.document) = (file, line, message, document)
        }

        /// `file:line`, or the document.
        public var location: String { document ?? "\(file):\(line)" }
    }

    public init(file: String, sheet: String? = nil, line: Int, column: Int? = nil, field: String? = nil, code: DiagnosticCode,
                severity: Severity? = nil, message: String, hint: String? = nil, value: String? = nil) {
        self.file = file
        self.sheet = sheet
        self.line = line
        self.column = column
        self.field = field
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.message = message
        self.hint = hint
        self.value = value
    }

    /// `file:line:column: error[code]: message (hint)`, the form editors and staff both read; in a
    /// workbook `file:Sheet!C14: ...`, the cell as the spreadsheet names it.
    public var rendered: String {
        var text = "\(location): \(severity.rawValue)[\(code.rawValue)]: \(message)"
        if let note { text += "\n  note: \(note.location): \(note.message)" }
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }

    /// The same problem, located on a workbook's sheet (nil: a CSV file).
    public func inSheet(_ sheet: String?) -> Diagnostic {
        var located = self
        located.sheet = sheet
        return located
    }

    /// `file:line:column`, or `file:Sheet!C14` (`file:Sheet!14` for a whole row) in a workbook, or the
    /// document and field it was made from.
    public var location: String {
        if let document { return document }
        guard let sheet else { return "\(file):\(line)" + (column.map { ":\($0)" } ?? "") }
        return "\(file):\(Self.sheetReference(sheet))!\(column.map(Self.columnLetters) ?? "")\(line)"
    }

    /// The spreadsheet's letters for a 1-based column: 1 A, 26 Z, 27 AA.
    public static func columnLetters(_ column: Int) -> String {
        var letters: [Character] = []
        var rest = column
        while rest > 0 {
            rest -= 1
            letters.append(Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(rest % 26))))
            rest /= 26
        }
        return String(letters.reversed())
    }

    /// A sheet name as a formula writes it: quoted (`'Fall 2026'`) unless letters, digits, `_` and `.` only.
    static func sheetReference(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
        }
        return plain ? name : "'" + name.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
}

/// A stable, documented problem code (`malformed-csv`, `unknown-reference` ...) that staff can look
/// up. This module defines the codes of reading CSV; modules above it add their own as static
/// members in an extension, so the set grows with the domain without this module knowing it.
public struct DiagnosticCode: Hashable, Sendable, Encodable, CustomStringConvertible {
    public let rawValue: String
    /// Warnings inform; errors reject a row or the file.
    public let defaultSeverity: Diagnostic.Severity
    /// True when the problem makes the whole file unreadable (exit 65), not just one row.
    public let isFatalToFile: Bool

    public init(_ rawValue: String, severity: Diagnostic.Severity = .error, fatalToFile: Bool = false) {
        self.rawValue = rawValue
        self.defaultSeverity = severity
        self.isFatalToFile = fatalToFile
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func == (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public static let malformedCSV = DiagnosticCode("malformed-csv", fatalToFile: true)
    public static let encodingError = DiagnosticCode("encoding-error", fatalToFile: true)
    public static let nulByte = DiagnosticCode("nul-byte", fatalToFile: true)
    public static let fieldTooLong = DiagnosticCode("field-too-long", fatalToFile: true)
    public static let emptyFile = DiagnosticCode("empty-file", fatalToFile: true)
    public static let blankHeader = DiagnosticCode("blank-header", fatalToFile: true)
    public static let duplicateHeader = DiagnosticCode("duplicate-header", fatalToFile: true)
    public static let extraCell = DiagnosticCode("extra-cell")
    public static let missingCell = DiagnosticCode("missing-cell")
    public static let blankRow = DiagnosticCode("blank-row", severity: .warning)

    /// The codes this module reports while reading a CSV file.
    public static let csvCodes: [DiagnosticCode] = [
        .malformedCSV, .encodingError, .nulByte, .fieldTooLong, .emptyFile, .blankHeader, .duplicateHeader,
        .extraCell, .missingCell, .blankRow,
    ]
}
