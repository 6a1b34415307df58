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

    mutating func append(_ text: String) {
        bytes.append(contentsOf: decodingOOXMLEscapes(text).utf8)
        ends.append(bytes.count)
    }

    /// Streams `xl/sharedStrings.xml` (when the workbook has one) into the table.
    static func read(from package: WorkbookPackage, part: String?) throws(WorkbookError) -> SharedStrings {
        guard let part, package.contains(part) else { return SharedStrings() }
        let stream = PartInputStream(packagePath: package.path, part: part, limits: package.limits)
        let collector = Collector(limits: package.limits)
        let parser = XMLParser(stream: stream)
        parser.delegate = collector
        let parsed = parser.parse()
        if collector.strings.oversizedIndex != nil { return collector.strings }
        if collector.isOverLimit {
            let limit = WorkbookLimits.size(package.limits.maxSharedStringBytes)
            throw .notAWorkbook(path: package.path, reason: "its shared strings take more than \(limit) of memory, "
                                + "more than crubatch holds (a CSV UTF-8 file has no such limit)")
        }
        guard parsed && collector.complete else {
            let reason = stream.failure?.message ?? (parser.parserError == nil ? "its XML ends before it is complete" : malformedXML(parser))
            throw .notAWorkbook(path: package.path, reason: "its shared strings cannot be read (\(reason))")
        }
        return collector.strings
    }

    /// Collects each `<si>`'s text: its `<t>`, or its rich-text runs' `<t>`s, never the phonetic
    /// guides (`<rPh>`).
    private final class Collector: NSObject, XMLParserDelegate {
        var strings = SharedStrings()
        /// Whether the root element closed: a stream that ends early is not always an XML error.
        private(set) var complete = false
        /// Whether the strings outgrew `maxSharedStringBytes` (parsing then stops).
        private(set) var isOverLimit = false
        private let maxTextBytes: Int
        private let maxHeldBytes: Int
        private var text = ""
        private var textBytes = 0
        private var inText = false
        private var phoneticDepth = 0

        init(limits: WorkbookLimits) {
            maxTextBytes = limits.maxCellBytes
            maxHeldBytes = limits.maxSharedStringBytes
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            switch localName(elementName) {
            case "si":
                text = ""
                textBytes = 0
            case "t": inText = phoneticDepth == 0
            case "rPh": phoneticDepth += 1
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard inText else { return }
            textBytes += string.utf8.count
            text += string
            if textBytes > maxTextBytes {
                strings.oversizedIndex = strings.count
                parser.abortParsing()
            }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            switch localName(elementName) {
            case "si":
                strings.append(text)
                if strings.heldBytes > maxHeldBytes {
                    isOverLimit = true
                    parser.abortParsing()
                }
            case "sst": complete = true
            case "t": inText = false
            case "rPh": phoneticDepth -= 1
            default: break
            }
        }
    }
}
