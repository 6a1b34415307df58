import Foundation

/// The kinds of element a reader of a part's XML acts on, told apart by local name (`x:row` is a
/// row), so the scanner hands over a kind rather than a name to compare.
protocol ScannedElement {
    /// The element a qualified name names, from its UTF-8.
    init(qualifiedName bytes: UnsafeBufferPointer<UInt8>)
}

extension ScannedElement {
    /// The element a qualified name names, as XMLParser hands it over.
    init(qualifiedName name: String) {
        var name = name
        self = name.withUTF8 { Self(qualifiedName: $0) }
    }
}

/// What the reader of a part's XML is told, by `XMLScanner` or, through its own delegate methods,
/// by XMLParser.
protocol XMLScanEvents: AnyObject {
    associatedtype Element: ScannedElement
    /// A start tag; false: stop reading (a failure, or nobody wants more).
    func started(_ element: Element, _ attributes: TagAttributes) -> Bool
    /// Text inside an element as valid UTF-8, its entities decoded, possibly in pieces; the bytes
    /// are the scanner's until the call returns.
    func found(_ text: UnsafeBufferPointer<UInt8>) -> Bool
    /// An end tag (also right after an empty element's start tag).
    func ended(_ element: Element) -> Bool
}

extension UnsafeBufferPointer<UInt8> {
    /// The local part of a qualified name's bytes: `row` of `x:row`.
    var localName: UnsafeBufferPointer<UInt8> {
        lastIndex(of: UInt8(ascii: ":")).map { UnsafeBufferPointer(rebasing: self[($0 + 1)...]) } ?? self
    }

    /// Whether these are the bytes of `ascii`, compared byte by byte (`elementsEqual` of a string's
    /// UTF-8 view costs more than the scanning).
    func holds(_ ascii: StaticString) -> Bool {
        holds(UnsafeBufferPointer(start: ascii.utf8Start, count: ascii.utf8CodeUnitCount))
    }

    /// Whether these are the same bytes as `other`.
    func holds(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        count == other.count && (count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}

/// The attributes of one start tag, by qualified name. The scanner fills one for every tag, its
/// pairs replaced in place: emptying an array and growing it again cost more than the tag.
struct TagAttributes {
    private var pairs: [(name: String, value: String)] = []
    private(set) var count = 0

    init() {}

    init(_ attributes: [String: String]) {
        pairs = attributes.map { ($0.key, $0.value) }
        count = pairs.count
    }

    subscript(name: String) -> String? {
        // Lengths first: they rule out most names without comparing strings.
        let length = name.utf8.count
        for index in 0..<count where pairs[index].name.utf8.count == length && pairs[index].name == name {
            return pairs[index].value
        }
        return nil
    }

    mutating func removeAll() { count = 0 }

    mutating func append(_ name: String, _ value: String) {
        if count < pairs.count { pairs[count] = (name, value) } else { pairs.append((name, value)) }
        count += 1
    }
}

/// Bytes the scanner holds (what it read, a name, a value, a text), in one allocation reused from
/// one to the next, without the checks an array makes on every byte it appends.
private final class ScratchBytes {
    // Only the scanner's thread touches them, one access at a time: no checks at run time.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    deinit { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    subscript(index: Int) -> UInt8 { base[index] }

    func removeAll() { count = 0 }

    /// Keeps the first `count` bytes.
    func truncate(to count: Int) { self.count = min(count, self.count) }

    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    /// Appends bytes from elsewhere: never from this storage, which growing frees.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Replaces the bytes with the stream's next ones; what `read` returned (-1: it failed).
    func fill(from stream: InputStream) -> Int {
        let read = stream.read(base, maxLength: capacity)
        count = max(read, 0)
        return read
    }

    private func grow(to needed: Int) {
        let larger = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = larger
    }
}

/// Why the scanner stops early: `bail`, the part is not the XML it takes; `stop`, the events said so.
private enum Bail: Error { case bail, stop }

/// Reads a part's XML (a worksheet, the shared strings) straight from its bytes, for the plain XML
/// spreadsheet programs write: an XML declaration, elements, attributes in quotes, UTF-8 text, the
/// five named entities and character references. Anything else (a comment, CDATA, a processing
/// instruction, a byte order mark, a carriage return inside the root element, a name outside
/// ASCII) and anything not well formed makes it give up (`bailed`), and the part is read again from
/// its start by XMLParser, which knows all of XML and says where a broken file breaks.
/// Foundation's parser spent 10 to 17 microseconds a row of a sheet more, in callbacks and
/// attribute dictionaries.
///
/// Text, names and values are found a buffer at a time, and the names a part is made of become
/// element kinds without decoding: reading byte by byte into arrays, the scanner spent about 200
/// instructions a byte of XML.
struct XMLScanner<Events: XMLScanEvents> {
    enum Outcome {
        /// The root element closed and nothing but white space followed.
        case finished
        /// The events said stop.
        case stopped
        /// Not the XML this reader takes: read it again with XMLParser.
        case bailed
    }

    private let stream: InputStream
    private let events: Events
    /// The bytes last read from the stream, and the next one to look at.
    private let input = ScratchBytes(capacity: 1 << 16)
    private var position = 0
    /// Scratch space for names, attribute values, references and attributes, reused from tag to tag.
    private let nameBytes = ScratchBytes(capacity: 64)
    private let valueBytes = ScratchBytes(capacity: 256)
    private let referenceBytes = ScratchBytes(capacity: 16)
    private var attributes = TagAttributes()
    /// The elements open around the scanner, innermost last: each one's kind and where its name
    /// starts in `openNames`, which holds their names end to end.
    private var open: [(element: Events.Element, nameStart: Int)] = []
    private let openNames = ScratchBytes(capacity: 256)

    init(stream: InputStream, events: Events) {
        self.stream = stream
        self.events = events
    }

    mutating func scan() -> Outcome {
        do {
            try document()
            return .finished
        } catch .bail {
            return .bailed
        } catch {
            return .stopped
        }
    }

    /// Reads the part's next bytes; false at its end. A part that cannot be read is left to
    /// XMLParser, which reports why.
    private mutating func refill() throws(Bail) -> Bool {
        let read = input.fill(from: stream)
        guard read >= 0 else { throw .bail }
        position = 0
        return read > 0
    }

    /// The next byte; nil at the end of the part.
    private mutating func next() throws(Bail) -> UInt8? {
        if position == input.count, try !refill() { return nil }
        defer { position += 1 }
        return input[position]
    }

    private mutating func byte() throws(Bail) -> UInt8 {
        guard let byte = try next() else { throw .bail }
        return byte
    }

    /// Appends to `bytes` the bytes from here up to the first that `stops` (left unread) or the end
    /// of the part; past `limit` bytes in all it gives up.
    @inline(__always)
    private mutating func append(to bytes: ScratchBytes, limit: Int, until stops: (UInt8) -> Bool) throws(Bail) {
        while true {
            if position == input.count, try !refill() { return }
            let available = input.bytes, start = position
            var stop = start
            while stop < available.count && !stops(available[stop]) { stop += 1 }
            if stop > start {
                guard bytes.count + (stop - start) <= limit else { throw .bail }
                bytes.append(UnsafeBufferPointer(rebasing: available[start..<stop]))
                position = stop
            }
            if stop < available.count { return }
        }
    }

    /// `byte`, or the first byte after it that is not white space.
    private mutating func skippingSpace(from byte: UInt8) throws(Bail) -> UInt8 {
        var byte = byte
        while XMLBytes.isSpace(byte) { byte = try self.byte() }
        return byte
    }

    private mutating func document() throws(Bail) {
        let text = ScratchBytes(capacity: 4096)
        var closedRoot = false
        // Bytes at the end of `text` as they stood in the part, since the last tag or reference.
        var plain = 0
        // Whether nothing came before this byte: only there may the XML declaration stand.
        var atStart = true
        while true {
            let before = text.count
            try append(to: text, limit: XMLBytes.maxTextBytes, until: XMLBytes.endsText)
            plain += text.count - before
            if text.count > before { atStart = false }
            guard let byte = try next() else { break }
            // References add to the text without passing `append`'s limit.
            guard text.count < XMLBytes.maxTextBytes else { throw .bail }
            defer { atStart = false }
            switch byte {
            case UInt8(ascii: "<"):
                try flush(text, inside: !open.isEmpty)
                plain = 0
                let first = try self.byte()
                if first == UInt8(ascii: "/") {
                    let after = try name(startingWith: try self.byte())
                    guard try skippingSpace(from: after) == UInt8(ascii: ">"), let innermost = open.last,
                          nameBytes.bytes.holds(UnsafeBufferPointer(rebasing: openNames.bytes[innermost.nameStart...]))
                    else { throw .bail }
                    open.removeLast()
                    openNames.truncate(to: innermost.nameStart)
                    closedRoot = open.isEmpty
                    guard events.ended(innermost.element) else { throw .stop }
                } else if first == UInt8(ascii: "?") && atStart {
                    try declaration()
                } else {
                    guard !closedRoot else { throw .bail }
                    let (element, empty, nameStart) = try startTag(startingWith: first)
                    guard events.started(element, attributes) else { throw .stop }
                    if empty {
                        openNames.truncate(to: nameStart)
                        closedRoot = open.isEmpty
                        guard events.ended(element) else { throw .stop }
                    } else {
                        guard open.count < XMLBytes.maxDepth else { throw .bail }
                        open.append((element, nameStart))
                    }
                }
            case UInt8(ascii: "&"):
                guard !open.isEmpty else { throw .bail }
                try reference(into: text)
                plain = 0
            case UInt8(ascii: ">"):
                // "]]>" may not stand in text.
                guard plain < 2 || text[text.count - 2] != UInt8(ascii: "]") || text[text.count - 1] != UInt8(ascii: "]")
                else { throw .bail }
                text.append(byte)
                plain += 1
            case 0x0D where open.isEmpty:
                // White space around the root element, where Excel ends its declaration with CR LF.
                break
            default:
                // A control character XML forbids, or a line end in text.
                throw .bail
            }
        }
        guard closedRoot, text.bytes.allSatisfy(XMLBytes.isSpace) else { throw .bail }
    }

    /// Hands over the text before a tag: inside the root element as it is, outside only white space.
    private func flush(_ text: ScratchBytes, inside: Bool) throws(Bail) {
        guard text.count > 0 else { return }
        defer { text.removeAll() }
        guard inside else {
            guard text.bytes.allSatisfy(XMLBytes.isSpace) else { throw .bail }
            return
        }
        try XMLBytes.validate(text.bytes)
        guard events.found(text.bytes) else { throw .stop }
    }

    /// Reads a name from its first byte on into `nameBytes`; returns the byte after it.
    private mutating func name(startingWith first: UInt8) throws(Bail) -> UInt8 {
        guard XMLBytes.isNameByte(first, first: true) else { throw .bail }
        nameBytes.removeAll()
        nameBytes.append(first)
        try append(to: nameBytes, limit: XMLBytes.maxNameBytes) { !XMLBytes.isNameByte($0, first: false) }
        return try byte()
    }

    /// A start tag after its `<`, its attributes read into `attributes` and its name put at the end
    /// of `openNames`: its element, whether it is empty (`/>`), and where its name starts there.
    private mutating func startTag(startingWith first: UInt8) throws(Bail) -> (Events.Element, Bool, Int) {
        var byte = try name(startingWith: first)
        let element = Events.Element(qualifiedName: nameBytes.bytes), nameStart = openNames.count
        // Before the attributes' names take the scratch space.
        openNames.append(nameBytes.bytes)
        attributes.removeAll()
        while true {
            let spaced = XMLBytes.isSpace(byte)
            byte = try skippingSpace(from: byte)
            if byte == UInt8(ascii: ">") { return (element, false, nameStart) }
            if byte == UInt8(ascii: "/") {
                guard try self.byte() == UInt8(ascii: ">") else { throw .bail }
                return (element, true, nameStart)
            }
            guard spaced else { throw .bail }
            let afterName = try self.name(startingWith: byte)
            let attribute = XMLBytes.attributeName(nameBytes.bytes)
            guard try skippingSpace(from: afterName) == UInt8(ascii: "=") else { throw .bail }
            let quote = try skippingSpace(from: try self.byte())
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw .bail }
            let value = try attributeValue(closedBy: quote)
            guard attributes.count < XMLBytes.maxAttributes, attributes[attribute] == nil,
                  XMLBytes.isPlainDeclaration(attribute, value) else { throw .bail }
            attributes.append(attribute, value)
            byte = try self.byte()
        }
    }

    /// An attribute's value up to its closing quote. White space other than spaces would be
    /// normalised by XML's rules: left to XMLParser.
    private mutating func attributeValue(closedBy quote: UInt8) throws(Bail) -> String {
        valueBytes.removeAll()
        while true {
            try append(to: valueBytes, limit: XMLBytes.maxValueBytes) {
                $0 == quote || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 < 0x20
            }
            switch try byte() {
            case quote:
                return try XMLBytes.string(valueBytes.bytes)
            case UInt8(ascii: "&"):
                guard valueBytes.count < XMLBytes.maxValueBytes else { throw .bail }
                try reference(into: valueBytes)
            default:
                // `<`, or white space XML would normalise.
                throw .bail
            }
        }
    }

    /// An entity or character reference after its `&`, appended as UTF-8.
    private mutating func reference(into bytes: ScratchBytes) throws(Bail) {
        referenceBytes.removeAll()
        while true {
            let byte = try self.byte()
            if byte == UInt8(ascii: ";") { break }
            guard referenceBytes.count < 10 else { throw .bail }
            referenceBytes.append(byte)
        }
        let name = referenceBytes.bytes
        if name.holds("lt") {
            bytes.append(UInt8(ascii: "<"))
        } else if name.holds("gt") {
            bytes.append(UInt8(ascii: ">"))
        } else if name.holds("amp") {
            bytes.append(UInt8(ascii: "&"))
        } else if name.holds("quot") {
            bytes.append(UInt8(ascii: "\""))
        } else if name.holds("apos") {
            bytes.append(UInt8(ascii: "'"))
        } else if name.first == UInt8(ascii: "#") {
            let reference = String(decoding: name, as: UTF8.self)
            let hex = reference.dropFirst().hasPrefix("x")
            let digits = reference.dropFirst(hex ? 2 : 1)
            let allowed = hex ? "0123456789abcdefABCDEF" : "0123456789"
            guard !digits.isEmpty, digits.allSatisfy(allowed.contains), let value = UInt32(digits, radix: hex ? 16 : 10),
                  value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                      || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value),
                  let scalar = Unicode.Scalar(value)
            else { throw .bail }
            UTF8.encode(scalar) { bytes.append($0) }
        } else {
            throw .bail
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` at the very start, after its `<?`:
    /// skipped when it names no encoding or UTF-8.
    private mutating func declaration() throws(Bail) {
        var bytes: [UInt8] = []
        while true {
            let byte = try self.byte()
            if byte == UInt8(ascii: ">") && bytes.last == UInt8(ascii: "?") { break }
            guard bytes.count < 200, byte >= 0x20 || XMLBytes.isSpace(byte) else { throw .bail }
            bytes.append(byte)
        }
        let text = String(decoding: bytes.dropLast(), as: UTF8.self)
        // Version 1.0, then optionally encoding UTF-8 and standalone, in that order.
        let taken = try? Regex(#"xml[ \t\n]+version[ \t\n]*=[ \t\n]*("1\.0"|'1\.0')"#
                                + #"([ \t\n]+encoding[ \t\n]*=[ \t\n]*("[Uu][Tt][Ff]-8"|'[Uu][Tt][Ff]-8'))?"#
                                + #"([ \t\n]+standalone[ \t\n]*=[ \t\n]*("(yes|no)"|'(yes|no)'))?[ \t\n]*"#)
        guard let taken, (try? taken.wholeMatch(in: text)) != nil else { throw .bail }
    }
}

/// What the scanner knows of XML's bytes: which may stand where, how text is checked, and how far
/// it reads before leaving a part to XMLParser.
private enum XMLBytes {
    /// Past these the scanner gives up and leaves the part to XMLParser, whose own limits then
    /// apply: no spreadsheet nests elements this deep or writes names or values this long, and text
    /// this long between two tags is more than a cell may hold anyway.
    static let maxDepth = 64
    static let maxNameBytes = 256
    static let maxValueBytes = 1 << 16
    static let maxTextBytes = 1 << 20
    static let maxAttributes = 64

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A
    }

    static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return !first
        default:
            return false
        }
    }

    /// Whether a byte ends a run of plain text: markup, a reference, `>` (which may close `]]>`), a
    /// carriage return (a line end, which XML rewrites) and the control characters XML forbids.
    static func endsText(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ">")
            || (byte < 0x20 && byte != 0x09 && byte != 0x0A)
    }

    /// Leaves invalid UTF-8, and the two non-characters XML forbids, to XMLParser.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws(Bail) {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return }
        var forbidden = false
        let invalid = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) {
            forbidden = forbidden || $0 == 0xFFFE || $0 == 0xFFFF
        }
        guard !invalid && !forbidden else { throw .bail }
    }

    /// The text of UTF-8 bytes, once `validate` has taken them.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) throws(Bail) -> String {
        try validate(bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An attribute's name (ASCII) as a string: the ones cells have without decoding.
    static func attributeName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count == 1 {
            switch bytes[0] {
            case UInt8(ascii: "r"): return "r"
            case UInt8(ascii: "s"): return "s"
            case UInt8(ascii: "t"): return "t"
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether an attribute is no namespace declaration, or one XMLParser hands over as it stands
    /// (it drops those that bind a reserved prefix or name, or unbind a prefix).
    static func isPlainDeclaration(_ name: String, _ value: String) -> Bool {
        guard name.utf8.first == UInt8(ascii: "x"), name == "xmlns" || name.hasPrefix("xmlns:") else { return true }
        let reserved = ["http://www.w3.org/2000/xmlns/", "http://www.w3.org/XML/1998/namespace"]
        return !value.isEmpty && !reserved.contains(value) && name != "xmlns:xml" && name != "xmlns:xmlns"
    }
}
