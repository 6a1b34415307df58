import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The workbook's shared string table, which cells of type `s` index. Every string is held (a
/// cell may point at any of them) in one UTF-8 buffer with end offsets: far less memory than an
/// array of strings when a sheet has millions of distinct emails. Reading stops at a string longer
/// than a cell may be (a ZIP bomb's, often): the cells that use it, or a string after it, are refused.
struct SharedStrings: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// The index of the string too long to hold, where reading stopped.
    private(set) var oversizedIndex: Int?

    var count: Int { ends.count }
    /// The memory the table takes: its text and an end offset a string.
    var heldBytes: Int { bytes.count + 8 * ends.count }

    subscript(index: Int) -> String? {
        guard index >= 0 && index < ends.count else { return nil }
        let start = index == 0 ? 0 : ends[index - 1]
        return String(decoding: bytes[start..<ends[index]], as: UTF8.self)
    }

    /// Drops the text read since the last string ended: text outside any `<si>`, or a string not held.
    private mutating func discardUnfinished() {
        let end = ends.last ?? 0
        if bytes.count > end { bytes.removeSubrange(end...) }
    }

    /// Adds text to the string being read; returns that string's UTF-8 bytes so far.
    private mutating func appendText(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.append(contentsOf: text)
        return bytes.count - (ends.last ?? 0)
    }

    /// Holds the string being read, its `_xHHHH_` escapes decoded.
    private mutating func endString() {
        let start = ends.last ?? 0
        if bytes.withUnsafeBufferPointer({ holdsEscapeMarker(UnsafeBufferPointer(rebasing: $0[start...])) }) {
            let decoded = decodingOOXMLEscapes(String(decoding: bytes[start...], as: UTF8.self))
            bytes.replaceSubrange(start..., with: decoded.utf8)
        }
        ends.append(bytes.count)
    }

    /// Streams `xl/sharedStrings.xml` (when the workbook has one) into the table with `XMLScanner`;
    /// when the scanner gives up on its XML, reads the part again from its start with XMLParser.
    static func read(from package: WorkbookPackage, part: String?) throws(WorkbookError) -> SharedStrings {
        guard let part, package.contains(part) else { return SharedStrings() }
        let open = { PartInputStream(packagePath: package.path, part: part, limits: package.limits) }
        let scanned = open()
        let collector = Collector(limits: package.limits)
        var scanner = XMLScanner(stream: scanned, events: collector)
        let outcome = scanner.scan()
        scanned.cancel()
        // A part whose bytes cannot be had fails the same way whoever reads it.
        if outcome != .bailed || scanned.failure != nil {
            return try collector.table(of: package, parsed: outcome == .finished, stream: scanned, parser: nil)
        }
        let stream = open()
        defer { stream.cancel() }
        let fallback = Collector(limits: package.limits)
        let parser = XMLParser(stream: stream)
        parser.delegate = fallback
        let parsed = parser.parse()
        return try fallback.table(of: package, parsed: parsed, stream: stream, parser: parser)
    }

    /// The elements of the shared strings part its reader acts on, by local name (`x:si` is an
    /// item); `other` for the rest.
    private enum Element: ScannedElement {
        case table, item, text, phonetic, other

        init(qualifiedName bytes: UnsafeBufferPointer<UInt8>) {
            let local = bytes.localName
            switch local.count {
            case 1: self = local[0] == UInt8(ascii: "t") ? .text : .other
            case 2: self = local.holds("si") ? .item : .other
            case 3: self = local.holds("sst") ? .table : local.holds("rPh") ? .phonetic : .other
            default: self = .other
            }
        }
    }

    /// Collects each `<si>`'s text, from `XMLScanner` or XMLParser: its `<t>`, or its rich-text
    /// runs' `<t>`s, never the phonetic guides (`<rPh>`).
    private final class Collector: NSObject, XMLParserDelegate, XMLScanEvents {
        private var strings = SharedStrings()
        /// Whether the root element closed: a stream that ends early is not always an XML error.
        private var complete = false
        /// Whether the strings outgrew `maxSharedStringBytes` (reading then stops).
        private var isOverLimit = false
        private let maxTextBytes: Int
        private let maxHeldBytes: Int
        private var inText = false
        private var phoneticDepth = 0

        init(limits: WorkbookLimits) {
            maxTextBytes = limits.maxCellBytes
            maxHeldBytes = limits.maxSharedStringBytes
        }

        /// The table read, or why the part cannot be read: `parsed` says whether the reader reached
        /// the part's end without an error, and `parser` is XMLParser when it read.
        func table(of package: WorkbookPackage, parsed: Bool, stream: PartInputStream,
                   parser: XMLParser?) throws(WorkbookError) -> SharedStrings {
            strings.discardUnfinished()
            if strings.oversizedIndex != nil { return strings }
            if isOverLimit {
                let limit = WorkbookLimits.size(maxHeldBytes)
                throw .notAWorkbook(path: package.path, reason: "its shared strings take more than \(limit) of memory, "
                                    + "more than crubatch holds (a CSV UTF-8 file has no such limit)")
            }
            guard parsed && complete else {
                let reason = stream.failure?.message
                    ?? parser.flatMap { $0.parserError == nil ? nil : malformedXML($0) }
                    ?? "its XML ends before it is complete"
                throw .notAWorkbook(path: package.path, reason: "its shared strings cannot be read (\(reason))")
            }
            return strings
        }

        func started(_ element: Element, _ attributes: TagAttributes) -> Bool {
            switch element {
            case .item: strings.discardUnfinished()
            case .text: inText = phoneticDepth == 0
            case .phonetic: phoneticDepth += 1
            case .table, .other: break
            }
            return true
        }

        func found(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard inText, strings.appendText(text) > maxTextBytes else { return true }
            strings.oversizedIndex = strings.count
            return false
        }

        func ended(_ element: Element) -> Bool {
            switch element {
            case .item:
                strings.endString()
                isOverLimit = strings.heldBytes > maxHeldBytes
                return !isOverLimit
            case .table: complete = true
            case .text: inText = false
            case .phonetic: phoneticDepth -= 1
            case .other: break
            }
            return true
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            if !started(Element(qualifiedName: elementName), TagAttributes(attributes)) { parser.abortParsing() }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            var string = string
            if !string.withUTF8(found) { parser.abortParsing() }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) {
            if !ended(Element(qualifiedName: elementName)) { parser.abortParsing() }
        }
    }
}
