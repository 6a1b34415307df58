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
    /// A name that matches several rows (`Cru` when there are Cru Cal Poly and Cru Cuesta).
    public static let ambiguousReference = DiagnosticCode("ambiguous-reference")
    /// A value read by an assumption a person should check (`PST` read as America/Los_Angeles, a
    /// campus given the default time zone): a warning.
    public static let assumedValue = DiagnosticCode("assumed-value", severity: .warning)
    /// A file in an `import --dir` folder that is not loaded, and why: a warning.
    public static let skippedFile = DiagnosticCode("skipped-file", severity: .warning)
    public static let overCapacity = DiagnosticCode("over-capacity")
    public static let controlCharacter = DiagnosticCode("control-character")
    /// An iCalendar file whose structure cannot be read (BEGIN/END nesting, a line outside every calendar).
    public static let malformedCalendar = DiagnosticCode("malformed-calendar", fatalToFile: true)
    /// A line of an iCalendar file that holds no content line (a folded line that lost its leading
    /// space, invalid UTF-8), or a property whose value cannot be read: skipped with a warning, and
    /// the rest of its event imported.
    public static let skippedLine = DiagnosticCode("skipped-line", severity: .warning)
    /// A ride offered by someone who is not a registered Cru member: only members drive.
    public static let notAMember = DiagnosticCode("not-a-member")
    /// A ride offered or requested for an event that does not share rides.
    public static let noRideshare = DiagnosticCode("no-rideshare")
    /// A ride one way or both that the event's ride sharing does not cover (a ride back when it
    /// shares rides to the event only).
    public static let directionNotOffered = DiagnosticCode("direction-not-offered")
    /// A row of students or leaders that adds a person who is probably someone known already (the
    /// same phone and name, an email variant, a nickname ...): a warning, or with `--on-duplicate
    /// reject` an error.
    public static let possibleDuplicate = DiagnosticCode("possible-duplicate", severity: .warning)

    /// A document of the old app's dump that a migration cannot make a row of without a guess (two
    /// campuses for one ministry, a phone two users share ...): reported at its field, with why.
    public static let refusedDocument = DiagnosticCode("refused-document")

    /// A row of a campus a campus account of the console does not work on: its campus cell, or the
    /// row it would change, is another campus's (or none). Only the console restricts campuses.
    public static let forbiddenCampus = DiagnosticCode("forbidden-campus")

    /// Every code `validate KIND FILE` can report, each documented in docs/guide/importing.md with a fixture
    /// (`skipped-file`, about the files of an `import --dir` folder, is documented beside them).
    public static let validationCodes: [DiagnosticCode] = csvCodes + workbookCodes + [
        .missingColumn, .unknownColumn, .missingValue, .typeError, .invalidEmail, .invalidPhone, .invalidChoice,
        .outOfRange, .duplicateKey, .unknownReference, .ambiguousReference, .overCapacity, .controlCharacter,
        .assumedValue, .malformedCalendar, .skippedLine, .notAMember, .noRideshare, .directionNotOffered, .possibleDuplicate,
    ]
}
