/// One problem found in an input file, located the way a compiler locates one:
/// file, physical line, 1-based cell (column), and a stable code staff can look up.
public struct Diagnostic: Error, Sendable, Hashable, Codable {
    /// How bad a problem is: errors reject a row or the file, warnings only inform.
    public enum Severity: String, Sendable, Codable {
        case error, warning
    }

    public var file: String
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

    public init(file: String, line: Int, column: Int? = nil, field: String? = nil, code: DiagnosticCode,
                severity: Severity? = nil, message: String, hint: String? = nil, value: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.message = message
        self.hint = hint
        self.value = value
    }

    /// `file:line:column: error[code]: message (hint)`, the form editors and staff both read.
    public var rendered: String {
        var location = "\(file):\(line)"
        if let column { location += ":\(column)" }
        var text = "\(location): \(severity.rawValue)[\(code.rawValue)]: \(message)"
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

/// The stable validation codes of DESIGN.md section 4.
public enum DiagnosticCode: String, Sendable, Codable, CaseIterable {
    case malformedCSV = "malformed-csv"
    case encodingError = "encoding-error"
    case nulByte = "nul-byte"
    case fieldTooLong = "field-too-long"
    case emptyFile = "empty-file"
    case blankHeader = "blank-header"
    case duplicateHeader = "duplicate-header"
    case missingColumn = "missing-column"
    case unknownColumn = "unknown-column"
    case extraCell = "extra-cell"
    case missingCell = "missing-cell"
    case blankRow = "blank-row"
    case missingValue = "missing-value"
    case typeError = "type-error"
    case invalidEmail = "invalid-email"
    case invalidPhone = "invalid-phone"
    case invalidChoice = "invalid-choice"
    case outOfRange = "out-of-range"
    case duplicateKey = "duplicate-key"
    case unknownReference = "unknown-reference"
    case overCapacity = "over-capacity"

    public var defaultSeverity: Diagnostic.Severity {
        switch self {
        case .unknownColumn, .blankRow: .warning
        default: .error
        }
    }

    /// True when the problem makes the whole file unreadable (exit 65), not just one row.
    public var isFatalToFile: Bool {
        switch self {
        case .malformedCSV, .encodingError, .nulByte, .fieldTooLong, .emptyFile, .blankHeader,
             .duplicateHeader, .missingColumn:
            true
        default:
            false
        }
    }
}
