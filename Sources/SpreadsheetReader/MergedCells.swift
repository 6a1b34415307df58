import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A range of cells a sheet shows merged into one (`<mergeCell ref="A1:B1"/>`): only its first cell
/// holds the text, the others are empty.
struct MergedRange: Equatable {
    /// `A1:B1` as the sheet writes it.
    let reference: String
    let columns: ClosedRange<Int>
    let rows: ClosedRange<Int>

    /// Reads `A1:B1`; nil for anything else.
    init?(_ reference: String) {
        let corners = reference.split(separator: ":").map(Self.cell)
        guard corners.count == 2, let first = corners[0], let last = corners[1],
            first.column <= last.column, first.row <= last.row
        else { return nil }
        self.reference = reference
        columns = first.column...last.column
        rows = first.row...last.row
    }

    /// `C14` as its 1-based column and row.
    private static func cell(_ text: Substring) -> (column: Int, row: Int)? {
        let letters = text.prefix { $0.isASCII && $0.isLetter }
        guard (1...3).contains(letters.count), let row = Int(text.dropFirst(letters.count)), row > 0 else { return nil }
        let column = letters.uppercased().unicodeScalars.reduce(0) { $0 * 26 + Int($1.value) - 64 }
        return (column, row)
    }

    /// The merged ranges of one sheet. A sheet lists them after its rows, so this reads its XML again,
    /// streamed: it is asked only to explain a header cell that a merge left empty. An unreadable
    /// sheet has none.
    static func all(packagePath: String, part: String, limits: WorkbookLimits) -> [MergedRange] {
        let stream = PartInputStream(packagePath: packagePath, part: part, limits: limits)
        defer { stream.cancel() }
        let collector = Collector()
        let parser = XMLParser(stream: stream)
        parser.delegate = collector
        _ = parser.parse()
        return collector.ranges
    }

    /// Collects the `ref` of every `mergeCell` element.
    private final class Collector: NSObject, XMLParserDelegate {
        var ranges: [MergedRange] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if localName(elementName) == "mergeCell", let range = attributes["ref"].flatMap(MergedRange.init) {
                ranges.append(range)
            }
        }
    }
}
