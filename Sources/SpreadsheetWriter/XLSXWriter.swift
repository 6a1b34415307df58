import CLibXLSXWriter
#if canImport(Glibc)
import Glibc
#endif

/// An .xlsx workbook being written with libxlsxwriter: sheets of typed cells (text is text, so no
/// cell can run as a formula), cell styles, and the sheet's view and print settings. The workbook
/// is written to its path by `close()`.
public final class XLSXWriter {
    /// A cell's look: bold and size for titles, a number format for dates, a solid fill (RGB, such
    /// as 0xFFC7CE) to mark a cell.
    public struct Style: Hashable, Sendable {
        public var bold = false
        public var size: Double?
        public var numberFormat: String?
        public var wrapsText = false
        public var fill: UInt32?

        public init(bold: Bool = false, size: Double? = nil, numberFormat: String? = nil, wrapsText: Bool = false,
                    fill: UInt32? = nil) {
            self.bold = bold
            self.size = size
            self.numberFormat = numberFormat
            self.wrapsText = wrapsText
            self.fill = fill
        }
    }

    /// Why libxlsxwriter refused something.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
        /// The operating system's reason when the file itself could not be written (a full disk, a
        /// folder gone): a problem of the output, not of the workbook.
        public var writeFailure: String?
    }

    /// The results of `workbook_close` that mean the file could not be written.
    private static let fileErrors = [
        LXW_ERROR_CREATING_XLSX_FILE, LXW_ERROR_CREATING_TMPFILE, LXW_ERROR_READING_TMPFILE,
        LXW_ERROR_ZIP_FILE_OPERATION, LXW_ERROR_ZIP_FILE_ADD, LXW_ERROR_ZIP_CLOSE,
    ]

    private let workbook: UnsafeMutablePointer<lxw_workbook>
    private var formats: [Style: UnsafeMutablePointer<lxw_format>] = [:]
    private var sheetNames: [String] = []
    private var closed = false

    /// Starts a workbook that `close()` writes to `path` (which it creates or truncates).
    public init(path: String) throws(Failure) {
        guard let workbook = workbook_new(path) else { throw Failure(description: "libxlsxwriter could not start a workbook") }
        self.workbook = workbook
    }

    deinit {
        if !closed { workbook_close(workbook) }
    }

    /// Adds a sheet named after `name`, made valid and unique (see `sheetName(for:taken:)`).
    public func addSheet(named name: String) throws(Failure) -> Sheet {
        let unique = Self.sheetName(for: name, taken: sheetNames)
        guard let sheet = workbook_add_worksheet(workbook, unique) else {
            throw Failure(description: "libxlsxwriter refused the sheet name \"\(unique)\"")
        }
        sheetNames.append(unique)
        return Sheet(sheet, name: unique, writer: self)
    }

    /// Writes the file.
    public func close() throws(Failure) {
        closed = true
        errno = 0
        let status = workbook_close(workbook)
        let systemError = errno
        guard status == LXW_NO_ERROR else {
            throw Failure(description: String(cString: lxw_strerror(status)),
                          writeFailure: Self.fileErrors.contains(status) && systemError != 0
                              ? String(cString: strerror(systemError)) : nil)
        }
    }

    /// The libxlsxwriter format of a style, made once per workbook.
    fileprivate func format(_ style: Style?) -> UnsafeMutablePointer<lxw_format>? {
        guard let style else { return nil }
        if let format = formats[style] { return format }
        let format = workbook_add_format(workbook)
        if style.bold { format_set_bold(format) }
        if let size = style.size { format_set_font_size(format, size) }
        if let numberFormat = style.numberFormat { format_set_num_format(format, numberFormat) }
        if style.wrapsText {
            format_set_text_wrap(format)
            format_set_align(format, UInt8(LXW_ALIGN_VERTICAL_TOP.rawValue))
        }
        if let fill = style.fill {
            format_set_pattern(format, UInt8(LXW_PATTERN_SOLID.rawValue))
            format_set_bg_color(format, fill)
        }
        formats[style] = format
        return format
    }

    /// A sheet name Excel accepts: without `[ ] : * ? / \`, without an apostrophe at either end,
    /// at most 31 characters, not empty, and unlike every name in `taken` ignoring case (a
    /// duplicate gets ` (2)`, ` (3)` ... within the 31 characters).
    public static func sheetName(for wanted: String, taken: [String]) -> String {
        var base = String(String.UnicodeScalarView(wanted.unicodeScalars.filter {
            !"[]:*?/\\".unicodeScalars.contains($0) && !($0.properties.generalCategory == .control)
        }))
        while base.hasPrefix("'") || base.hasSuffix("'") || base.hasPrefix(" ") || base.hasSuffix(" ") {
            base = String(base.hasPrefix("'") || base.hasPrefix(" ") ? base.dropFirst() : base.dropLast())
        }
        if base.isEmpty { base = "Sheet" }
        let used = Set(taken.map { $0.lowercased() } + ["history"])
        var candidate = truncated(base, to: 31)
        var number = 2
        while used.contains(candidate.lowercased()) {
            let suffix = " (\(number))"
            candidate = truncated(base, to: 31 - suffix.count) + suffix
            number += 1
        }
        return candidate
    }

    /// The longest prefix of `text` within `length` UTF-16 units (what Excel counts).
    private static func truncated(_ text: String, to length: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var units = 0
        for scalar in text.unicodeScalars {
            units += scalar.utf16.count
            if units > length { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// One sheet of the workbook. Rows and columns count from 0, as in libxlsxwriter.
    public final class Sheet {
        public let name: String
        private let sheet: UnsafeMutablePointer<lxw_worksheet>
        // The workbook owns the formats and must outlive its sheets' writes.
        private let writer: XLSXWriter

        fileprivate init(_ sheet: UnsafeMutablePointer<lxw_worksheet>, name: String, writer: XLSXWriter) {
            self.sheet = sheet
            self.name = name
            self.writer = writer
        }

        /// A text cell (never a formula, whatever its first character); for empty text nothing, or
        /// a blank cell with `style` when one is given.
        public func write(_ text: String, row: Int, column: Int, style: Style? = nil) throws(Failure) {
            guard !text.isEmpty else {
                if let style { try check(worksheet_write_blank(sheet, lxw_row_t(row), lxw_col_t(column), writer.format(style))) }
                return
            }
            try check(worksheet_write_string(sheet, lxw_row_t(row), lxw_col_t(column), text, writer.format(style)))
        }

        /// A date cell: a real spreadsheet date, shown with `style`'s number format.
        public func write(year: Int, month: Int, day: Int, row: Int, column: Int, style: Style) throws(Failure) {
            var date = lxw_datetime(year: Int32(year), month: Int32(month), day: Int32(day), hour: 0, min: 0, sec: 0)
            try check(worksheet_write_datetime(sheet, lxw_row_t(row), lxw_col_t(column), &date, writer.format(style)))
        }

        /// A note on a cell (what Excel calls a comment), shown when the pointer rests on the cell.
        public func comment(_ text: String, row: Int, column: Int) throws(Failure) {
            try check(worksheet_write_comment(sheet, lxw_row_t(row), lxw_col_t(column), text))
        }

        /// The width of columns, in characters of the default font.
        public func setWidth(_ width: Double, columns: ClosedRange<Int>) throws(Failure) {
            try check(worksheet_set_column(sheet, lxw_col_t(columns.lowerBound), lxw_col_t(columns.upperBound), width, nil))
        }

        /// Keeps the rows above `row` in view while scrolling.
        public func freezeRows(above row: Int) {
            worksheet_freeze_panes(sheet, lxw_row_t(row), 0)
        }

        /// Filter buttons on the header row `row` over the rows below it, up to `lastRow`.
        public func autofilter(headerRow row: Int, lastRow: Int, columns: ClosedRange<Int>) throws(Failure) {
            try check(worksheet_autofilter(sheet, lxw_row_t(row), lxw_col_t(columns.lowerBound), lxw_row_t(lastRow),
                                           lxw_col_t(columns.upperBound)))
        }

        /// Prints landscape, one page wide, with row `repeatedRow` at the top of every page.
        public func printLandscape(repeatingRow repeatedRow: Int) throws(Failure) {
            worksheet_set_landscape(sheet)
            worksheet_fit_to_pages(sheet, 1, 0)
            try check(worksheet_repeat_rows(sheet, lxw_row_t(repeatedRow), lxw_row_t(repeatedRow)))
        }

        private func check(_ status: lxw_error) throws(Failure) {
            guard status == LXW_NO_ERROR else { throw Failure(description: String(cString: lxw_strerror(status))) }
        }
    }
}
