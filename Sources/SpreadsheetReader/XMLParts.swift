import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Walks the elements of a small XML part (workbook, relationships, styles) and hands each start
/// tag to `visit` with its local name, its attributes by local name and the local names of its
/// ancestors. Prefixes are dropped: generators differ in the prefixes they bind.
final class ElementVisitor: NSObject, XMLParserDelegate {
    private let visit: (_ name: String, _ attributes: [String: String], _ ancestors: [String]) -> Void
    private var ancestors: [String] = []
    /// Whether the root element closed.
    private var complete = false

    private init(_ visit: @escaping (String, [String: String], [String]) -> Void) {
        self.visit = visit
    }

    /// Parses `data`; returns the parser's error message, or nil when the XML is well formed.
    static func walk(_ data: Data, _ visit: @escaping (_ name: String, _ attributes: [String: String], _ ancestors: [String]) -> Void) -> String? {
        let visitor = ElementVisitor(visit)
        let parser = XMLParser(data: data)
        parser.delegate = visitor
        guard parser.parse() else { return malformedXML(parser) }
        return visitor.complete ? nil : "its XML ends before it is complete"
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        var local: [String: String] = [:]
        for (key, value) in attributes { local[localName(key)] = value }
        let name = localName(elementName)
        visit(name, local, ancestors)
        ancestors.append(name)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        ancestors.removeLast()
        complete = ancestors.isEmpty
    }
}

/// Why XMLParser stopped, for a message: its error code (XMLParser.ErrorCode) where the XML broke.
func malformedXML(_ parser: XMLParser) -> String {
    "malformed XML (XMLParser error \((parser.parserError as NSError?)?.code ?? 0) at line \(parser.lineNumber), column \(parser.columnNumber))"
}

/// `x:row` → `row`, `r:id` → `id`.
func localName(_ qualified: String) -> String {
    guard let colon = qualified.lastIndex(of: ":") else { return qualified }
    return String(qualified[qualified.index(after: colon)...])
}

/// Decodes the `_xHHHH_` escapes OOXML writes for characters XML cannot hold (`_x000D_` is a
/// carriage return; `_x005F_` escapes a literal underscore that would start one).
func decodingOOXMLEscapes(_ text: String) -> String {
    guard text.contains("_x") else { return text }
    var result = ""
    var rest = Substring(text)
    while let start = rest.range(of: "_x") {
        result += rest[..<start.lowerBound]
        let hex = rest[start.upperBound...].prefix(5)
        if hex.count == 5, hex.last == "_", let code = UInt32(hex.dropLast(), radix: 16), let scalar = Unicode.Scalar(code) {
            result.unicodeScalars.append(scalar)
            rest = rest[rest.index(start.upperBound, offsetBy: 5)...]
        } else {
            result += "_x"
            rest = rest[start.upperBound...]
        }
    }
    return result + rest
}
