import CSVStream
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One row of a worksheet as stored: its number and the text of its cells by column.
struct SheetRow: Sendable {
    var number: Int
    /// Index 0 is column A. Empty cells are empty strings; the array ends at the last cell with text.
    var cells: [String]
    /// Cells holding a formula but no calculated value.
    var uncalculated: [UncalculatedFormula] = []

    var isBlank: Bool { uncalculated.isEmpty && cells.allSatisfy(\.isEmpty) }
}

/// A formula cell saved without its value, by a program that writes formulas but does not calculate.
struct UncalculatedFormula: Sendable {
    var column: Int
    var formula: String
}

/// Why a worksheet stopped being readable part-way, at which row and, for one cell, which column.
struct SheetFailure: Error, Sendable {
    var row: Int
    var column: Int?
    var code = DiagnosticCode.malformedWorkbook
    var message: String
}

/// The elements of a worksheet its parser acts on, by local name (`x:row` is a row); `other` for
/// the rest.
enum SheetElement: ScannedElement {
    case worksheet, row, cell, value, formula, inlineString, text, phonetic, other

    init(qualifiedName bytes: UnsafeBufferPointer<UInt8>) {
        let local = bytes.localName
        switch local.count {
        case 1:
            switch local[0] {
            case UInt8(ascii: "c"): self = .cell
            case UInt8(ascii: "v"): self = .value
            case UInt8(ascii: "f"): self = .formula
            case UInt8(ascii: "t"): self = .text
            default: self = .other
            }
        case 2: self = local.holds("is") ? .inlineString : .other
        case 3: self = local.holds("row") ? .row : local.holds("rPh") ? .phonetic : .other
        case 9: self = local.holds("worksheet") ? .worksheet : .other
        default: self = .other
        }
    }
}

/// Rows parsed so far and how far into the sheet's XML they reach.
struct RowBatch: Sendable {
    var rows: [SheetRow]
    var bytesRead: Int
}

/// What turns a cell's stored value into its text: the workbook's shared strings, styles and dates.
struct SheetContext: Sendable {
    var strings: SharedStrings
    var styles: CellStyles
    var dateSystem: DateSystem
    var limits: WorkbookLimits
}

/// The rows of one worksheet, parsed on a thread of their own while the caller works on earlier
/// ones: XMLParser pushes elements, the caller pulls rows, and a queue of a few batches between
/// them keeps memory flat.
final class SheetRowStream {
    private let batches = BoundedQueue<RowBatch, SheetFailure>(capacity: 4)
    private let parserDone = DispatchSemaphore(value: 0)
    private var batch: [SheetRow] = []
    private var index = 0
    /// Bytes of the sheet's XML behind the rows handed out so far.
    private(set) var bytesRead = 0

    init(packagePath: String, part: String, context: SheetContext) {
        let batches = batches, parserDone = parserDone
        Thread.detachNewThread {
            defer { parserDone.signal() }
            SheetParser(context: context, output: batches).run {
                PartInputStream(packagePath: packagePath, part: part, limits: context.limits)
            }
        }
    }

    deinit {
        batches.cancel()
        parserDone.wait()
    }

    /// The next row present in the sheet; nil at the end.
    func next() throws(SheetFailure) -> SheetRow? {
        while index >= batch.count {
            guard let next = try batches.take() else { return nil }
            batch = next.rows
            index = 0
            bytesRead = next.bytesRead
        }
        defer { index += 1 }
        return batch[index]
    }
}

/// Turns a worksheet's XML into rows: `<row r="14">` holding `<c r="C14" t="s" s="2"><v>..</v></c>`,
/// inline strings in `<is><t>`, formulas in `<f>` beside their cached `<v>`. `XMLScanner` reads
/// the XML first; when it gives up, a parser of its own reads the sheet again from the start with
/// XMLParser and hands out only the rows after those handed out already.
private final class SheetParser: NSObject, XMLParserDelegate, XMLScanEvents {
    private enum Capture { case none, value, formula, inlineText }

    /// The last row and column a sheet can have (Excel's 1,048,576 rows and XFD columns).
    static let maxRow = 1_048_576
    static let maxColumn = 16_384

    private let context: SheetContext
    private let output: BoundedQueue<RowBatch, SheetFailure>
    private var stream: PartInputStream?
    /// Rows ended so far, and how many of the first ones an earlier reading of the sheet handed out.
    private var rowsEnded = 0
    private let rowsHandedOut: Int
    /// The bytes read as the last batch reported them: a second reading counts from 0 again, and
    /// progress never goes back.
    private var bytesReported: Int
    private var rows: [SheetRow] = []
    private var cancelled = false
    /// Why parsing stopped at a cell or row that cannot be read.
    private var failure: SheetFailure?
    /// Whether the root element closed: a stream that ends early is not always an XML error.
    private var complete = false

    // The row and cell being read, touched by the parser's thread only and one access at a time:
    // no exclusivity checks at run time, which had cost 6% of reading a sheet.
    @exclusivity(unchecked) private var row = SheetRow(number: 0, cells: [])
    @exclusivity(unchecked) private var column = 0
    @exclusivity(unchecked) private var type = "n"
    @exclusivity(unchecked) private var style = 0
    @exclusivity(unchecked) private var value = ""
    @exclusivity(unchecked) private var formula = ""
    @exclusivity(unchecked) private var hasFormula = false
    @exclusivity(unchecked) private var inlineText = ""
    /// UTF-8 bytes of the cell's value, formula and inline text so far.
    @exclusivity(unchecked) private var cellBytes = 0
    @exclusivity(unchecked) private var inInlineString = false
    @exclusivity(unchecked) private var phoneticDepth = 0
    @exclusivity(unchecked) private var capture = Capture.none

    init(context: SheetContext, output: BoundedQueue<RowBatch, SheetFailure>, rowsHandedOut: Int = 0,
         bytesReported: Int = 0) {
        self.context = context
        self.output = output
        self.rowsHandedOut = rowsHandedOut
        self.bytesReported = bytesReported
    }

    /// Reads the sheet from `open()`'s stream with `XMLScanner`; when it gives up, hands out the
    /// rows read so far and reads the sheet again from a new stream with XMLParser.
    func run(open: () -> PartInputStream) {
        let first = open()
        stream = first
        var scanner = XMLScanner(stream: first, events: self)
        let outcome = scanner.scan()
        first.cancel()
        guard outcome == .bailed else { return finish(parsed: true, parser: nil) }
        flush()
        guard !cancelled else { return }
        SheetParser(context: context, output: output, rowsHandedOut: rowsEnded, bytesReported: bytesReported)
            .parse(open())
    }

    /// Reads the sheet from `stream` with XMLParser.
    private func parse(_ stream: PartInputStream) {
        self.stream = stream
        defer { stream.cancel() }
        let parser = XMLParser(stream: stream)
        parser.delegate = self
        finish(parsed: parser.parse(), parser: parser)
    }

    /// Hands out what is left and how the reading ended.
    private func finish(parsed: Bool, parser: XMLParser?) {
        if cancelled { return }
        if let failure {
            flush()
            output.finish(failure: failure)
            return
        }
        guard parsed && complete else {
            let reason = stream?.failure?.message
                ?? parser.flatMap { $0.parserError == nil ? nil : malformedXML($0) }
                ?? "the sheet's XML ends before it is complete"
            flush()
            output.finish(failure: SheetFailure(row: row.number, message: reason))
            return
        }
        flush()
        output.finish()
    }

    private func flush() {
        guard !cancelled else { return }
        do {
            bytesReported = max(bytesReported, stream?.bytesRead ?? 0)
            try output.put(RowBatch(rows: rows, bytesRead: bytesReported))
        } catch {
            cancelled = true
        }
        rows.removeAll(keepingCapacity: true)
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if !started(SheetElement(qualifiedName: elementName), TagAttributes(attributes)) { parser.abortParsing() }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !found(string) { parser.abortParsing() }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if !ended(SheetElement(qualifiedName: elementName)) { parser.abortParsing() }
    }

    func started(_ element: SheetElement, _ attributes: TagAttributes) -> Bool {
        switch element {
        case .row:
            let number = attributes["r"].map { Int($0) ?? 0 } ?? row.number + 1
            guard (1...Self.maxRow).contains(number) else {
                let message = "a row is numbered \(attributes["r"] ?? String(number)), "
                    + "outside the rows a sheet can have (1 to \(Self.maxRow))"
                return fail(SheetFailure(row: row.number, message: message))
            }
            // Rows come in increasing order (Excel offers to repair a sheet whose rows do not): a
            // number given twice would name two rows, and every diagnostic and row would be ambiguous.
            guard number > row.number else {
                let message = "row \(number) comes after row \(row.number): a sheet's rows are numbered in increasing order"
                return fail(SheetFailure(row: number, message: message))
            }
            row = SheetRow(number: number, cells: [])
            column = 0
        case .cell:
            let reference = attributes["r"]
            let next = reference.map { Self.column(ofReference: $0) ?? 0 } ?? column + 1
            guard (1...Self.maxColumn).contains(next) else {
                let cell = reference.map { "a cell's reference \"\($0)\"" } ?? "a cell after column XFD"
                let message = cell + " is outside the columns a sheet can have (A to XFD)"
                return fail(SheetFailure(row: row.number, message: message))
            }
            // Cells come in increasing column order (Excel ignores the cells after one that does
            // not, LibreOffice keeps them): a column given twice would drop one value.
            guard next > column else {
                let message = "cell \(Diagnostic.columnLetters(next))\(row.number) comes after "
                    + "\(Diagnostic.columnLetters(column))\(row.number): a row's cells are in increasing column order"
                return fail(SheetFailure(row: row.number, column: next, message: message))
            }
            column = next
            type = attributes["t"] ?? "n"
            style = attributes["s"].flatMap { Int($0) } ?? 0
            value = ""
            formula = ""
            hasFormula = false
            inlineText = ""
            cellBytes = 0
        case .value:
            capture = .value
        case .formula:
            capture = .formula
            hasFormula = true
        case .inlineString:
            inInlineString = true
        case .text where inInlineString && phoneticDepth == 0:
            capture = .inlineText
        case .phonetic:
            phoneticDepth += 1
        default:
            break
        }
        return true
    }

    func found(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        capture == .none || found(String(decoding: text, as: UTF8.self))
    }

    func found(_ string: String) -> Bool {
        if capture == .none { return true }
        cellBytes += string.utf8.count
        if cellBytes > context.limits.maxCellBytes {
            return fail(SheetFailure(row: row.number, column: column, code: .fieldTooLong,
                                     message: "a cell is longer than \(context.limits.maxCellBytes) bytes"))
        }
        switch capture {
        case .none: break
        case .value: value += string
        case .formula: formula += string
        case .inlineText: inlineText += string
        }
        return true
    }

    func ended(_ element: SheetElement) -> Bool {
        switch element {
        case .value, .formula, .text:
            capture = .none
        case .inlineString:
            inInlineString = false
        case .phonetic:
            phoneticDepth -= 1
        case .cell:
            do {
                try endCell()
            } catch {
                return fail(error)
            }
        case .worksheet:
            complete = true
        case .row:
            rowsEnded += 1
            guard rowsEnded > rowsHandedOut else { return true }
            rows.append(row)
            if rows.count >= 512 {
                flush()
                return !cancelled
            }
        default:
            break
        }
        return true
    }

    /// Stops parsing at a cell or row that cannot be read; the rows before it are still handed out.
    private func fail(_ failure: SheetFailure) -> Bool {
        if self.failure == nil { self.failure = failure }
        return false
    }

    private func endCell() throws(SheetFailure) {
        // A formula whose result is an empty string is saved as type str with an empty value.
        if hasFormula && value.isEmpty && type != "str" {
            row.uncalculated.append(UncalculatedFormula(column: column, formula: formula))
            return
        }
        let text = try cellText()
        guard !text.isEmpty, column >= 1 else { return }
        if row.cells.count == column - 1 {
            row.cells.append(text)
            return
        }
        if row.cells.count < column { row.cells.append(contentsOf: repeatElement("", count: column - row.cells.count)) }
        row.cells[column - 1] = text
    }

    private func cellText() throws(SheetFailure) -> String {
        switch type {
        case "s": return try sharedString()
        case "inlineStr": return decodingOOXMLEscapes(inlineText)
        case "str": return decodingOOXMLEscapes(value)
        case "b": return value.isEmpty ? "" : value == "1" ? "TRUE" : "FALSE"
        case "e", "d": return value
        default: return value.isEmpty ? "" : context.styles[style].text(of: value, dateSystem: context.dateSystem)
        }
    }

    /// The text of a shared-string cell, whose value is the string's index.
    private func sharedString() throws(SheetFailure) -> String {
        if value.isEmpty { return "" }
        if let index = Int(value), let oversized = context.strings.oversizedIndex, index >= oversized {
            let limit = context.limits.maxCellBytes
            let message = index == oversized ? "a cell is longer than \(limit) bytes"
                : "the cell's shared string \(index) comes after string \(oversized), "
                    + "which is longer than \(limit) bytes: crubatch read no further"
            throw SheetFailure(row: row.number, column: column, code: .fieldTooLong, message: message)
        }
        guard let index = Int(value), let text = context.strings[index] else {
            let message = "the cell points at shared string \(value), "
                + "and the workbook has \(context.strings.count) (0 to \(context.strings.count - 1))"
            throw SheetFailure(row: row.number, column: column, message: message)
        }
        return text
    }

    /// The 1-based column of a cell reference (`C14` → 3, `AA2` → 27); past `maxColumn`, `maxColumn + 1`
    /// (the letters of a hostile reference would overflow).
    static func column(ofReference reference: String) -> Int? {
        var column = 0
        for byte in reference.utf8 where column <= maxColumn {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): column = column * 26 + Int(byte - UInt8(ascii: "A")) + 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"): column = column * 26 + Int(byte - UInt8(ascii: "a")) + 1
            default: return column > 0 ? column : nil
            }
        }
        return column > 0 ? column : nil
    }
}
