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
        if let refusal = PrologCheck.check(data).refusal { return refusal }
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

/// Reads the prolog of an XML part (what comes before its root element), a chunk at a time, for a
/// document type declaration. Spreadsheet programs never write one, and the entities it declares are
/// how a hostile file attacks a reader: expansion without end (billion laughs), or a file or address
/// of this machine read into a cell (XXE). A part that declares one is refused, not read without it.
struct PrologCheck {
    /// What the bytes so far show.
    enum Verdict: Equatable {
        /// The root element has started with no declaration before it.
        case clean
        /// A `<!DOCTYPE` stands in the prolog.
        case declaresDocumentType
        /// The prolog has not ended yet.
        case undecided
        /// The prolog runs past `limit` bytes: no spreadsheet program writes that much before the root.
        case tooLong
        /// A byte order mark of UTF-16 or a NUL byte: not the UTF-8 every spreadsheet program writes,
        /// and a declaration in it would go unseen.
        case notUTF8

        /// Why a part with this prolog is not read; nil while it may be.
        var refusal: String? {
            switch self {
            case .clean, .undecided: nil
            case .declaresDocumentType:
                "it declares a document type (<!DOCTYPE ...>), which no spreadsheet program writes: its entities are not read"
            case .tooLong: "its XML has more than \(PrologCheck.limit) bytes before its first element"
            case .notUTF8: "its XML is not UTF-8, which every spreadsheet program writes"
            }
        }
    }

    /// The most prolog bytes looked at.
    static let limit = 1 << 16
    private var prolog: [UInt8] = []
    private(set) var verdict = Verdict.undecided

    /// The verdict after `chunk`, the next bytes of the part.
    mutating func feed(_ chunk: some Collection<UInt8>) -> Verdict {
        guard verdict == .undecided else { return verdict }
        prolog += chunk.prefix(Self.limit + 1 - prolog.count)
        verdict = Self.judge(prolog)
        if verdict == .undecided && prolog.count > Self.limit { verdict = .tooLong }
        return verdict
    }

    /// The verdict on the whole of `data`: a part read at once.
    static func check(_ data: Data) -> Verdict {
        var check = PrologCheck()
        let verdict = check.feed(data)
        return verdict == .undecided ? .clean : verdict
    }

    /// Steps over the XML declaration, processing instructions, comments and white space.
    private static func judge(_ bytes: [UInt8]) -> Verdict {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.contains(0) { return .notUTF8 }
        var index = 0
        func starts(_ text: String, at position: Int) -> Bool? {
            let expected = Array(text.utf8)
            let available = min(expected.count, bytes.count - position)
            guard bytes[position..<position + available].elementsEqual(expected[..<available]) else { return false }
            return available == expected.count ? true : nil
        }
        func end(of terminator: String, from position: Int) -> Int? {
            let expected = Array(terminator.utf8)
            var at = position
            while at + expected.count <= bytes.count {
                if bytes[at..<at + expected.count].elementsEqual(expected) { return at + expected.count }
                at += 1
            }
            return nil
        }
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard open + 1 < bytes.count else { return .undecided }
            switch bytes[open + 1] {
            case UInt8(ascii: "?"):
                guard let next = end(of: "?>", from: open + 2) else { return .undecided }
                index = next
            case UInt8(ascii: "!"):
                switch (starts("<!--", at: open), starts("<!DOCTYPE", at: open)) {
                case (true, _):
                    guard let next = end(of: "-->", from: open + 4) else { return .undecided }
                    index = next
                case (_, true): return .declaresDocumentType
                case (nil, _), (_, nil): return .undecided
                default: return .clean
                }
            default:
                return .clean
            }
        }
        return .undecided
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
    guard holdsEscapeMarker(text) else { return text }
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

/// Whether `text` holds `_x`, which every escape starts with: a scan of its bytes, since nearly no
/// cell holds one (Foundation's `contains` of a string bridges every cell to NSString).
private func holdsEscapeMarker(_ text: String) -> Bool {
    var text = text
    return text.withUTF8(holdsEscapeMarker)
}

/// Whether UTF-8 `bytes` hold `_x`, which every escape starts with.
func holdsEscapeMarker(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.count > 1
        && bytes.indices.dropLast().contains { bytes[$0] == UInt8(ascii: "_") && bytes[$0 + 1] == UInt8(ascii: "x") }
}
