import CSVStream
import SpreadsheetReader

/// The codes crubatch adds to those of reading CSV: problems with headers, cells, keys and
/// references that only a kind's format and the database can tell.
extension DiagnosticCode {
    public static let missingColumn = DiagnosticCode("missing-column", fatalToFile: true)
    public static let unknownColumn = DiagnosticCode("unknown-column", severity: .warning)
    public static let missingValue = DiagnosticCode("missing-value")
    public static let typeError = DiagnosticCode("type-error")
    public static let invalidEmail = DiagnosticCode("invalid-email")
    public static let invalidPhone = DiagnosticCode("invalid-phone")
    public static let invalidChoice = DiagnosticCode("invalid-choice")
    public static let outOfRange = DiagnosticCode("out-of-range")
    public static let duplicateKey = DiagnosticCode("duplicate-key")
    public static let unknownReference = DiagnosticCode("unknown-reference")
    public static let overCapacity = DiagnosticCode("over-capacity")
    public static let controlCharacter = DiagnosticCode("control-character")

    /// Every code `import` and `validate` can report, each documented in the README with a fixture.
    public static let validationCodes: [DiagnosticCode] = csvCodes + workbookCodes + [
        .missingColumn, .unknownColumn, .missingValue, .typeError, .invalidEmail, .invalidPhone, .invalidChoice,
        .outOfRange, .duplicateKey, .unknownReference, .overCapacity, .controlCharacter,
    ]
}
