import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The workbook's shared string table, which cells of type `s` index. Every string is held (a
/// cell may point at any of them) in one UTF-8 buffer with end offsets: far less memory than an
/// array of strings when a sheet has millions of distinct emails.
struct SharedStrings: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    var count: Int { ends.count }

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
        let stream = PartInputStream(packagePath: package.path, part: part)
        let collector = Collector()
        let parser = XMLParser(stream: stream)
        parser.delegate = collector
        guard parser.parse() && collector.complete else {
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
        private var text = ""
        private var inText = false
        private var phoneticDepth = 0

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            switch localName(elementName) {
            case "si": text = ""
            case "t": inText = phoneticDepth == 0
            case "rPh": phoneticDepth += 1
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inText { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            switch localName(elementName) {
            case "si": strings.append(text)
            case "sst": complete = true
            case "t": inText = false
            case "rPh": phoneticDepth -= 1
            default: break
            }
        }
    }
}
