import Foundation

/// What a reader of a worksheet's XML tells the sheet's parser, whichever reader it is.
protocol SheetXMLEvents: AnyObject {
    /// A start tag by its qualified name; false: stop reading (a failure, or nobody wants more rows).
    func started(_ name: String, _ attributes: SheetAttributes) -> Bool
    /// Text inside an element, its entities decoded, possibly in pieces.
    func found(_ text: String) -> Bool
    /// An end tag (also right after an empty element's start tag).
    func ended(_ name: String) -> Bool
}

/// The attributes of one start tag, by qualified name.
struct SheetAttributes {
    var pairs: [(name: String, value: String)] = []

    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }
}

/// Reads a worksheet's XML straight from its bytes, for the plain XML spreadsheet programs write:
/// an XML declaration, elements, attributes in quotes, UTF-8 text, the five named entities and
/// character references. Anything else (a comment, CDATA, a processing instruction, a byte order
/// mark, a carriage return, a name outside ASCII) and anything not well formed makes it give up
/// (`bailed`), and the sheet is read again from its start by XMLParser, which knows all of XML and
/// says where a broken file breaks. Foundation's parser spent 10 to 17 microseconds a row more, in
/// callbacks and attribute dictionaries.
struct SheetScanner {
    enum Outcome {
        /// The root element closed and nothing but white space followed.
        case finished
        /// The events said stop.
        case stopped
        /// Not the XML this reader takes: read it again with XMLParser.
        case bailed
    }

    private let stream: InputStream
    private let events: any SheetXMLEvents
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0
    private var end = 0
    private var atStart = true
    /// Scratch space for names and attribute values, reused from tag to tag.
    private var nameBytes: [UInt8] = []
    private var valueBytes: [UInt8] = []

    /// Past these the scanner gives up and leaves the sheet to XMLParser, whose own limits then
    /// apply: no spreadsheet nests elements this deep or writes names or values this long, and text
    /// this long between two tags is more than a cell may hold anyway.
    private static let maxDepth = 64
    private static let maxNameBytes = 256
    private static let maxValueBytes = 1 << 16
    private static let maxTextBytes = 1 << 20
    private static let maxAttributes = 64

    init(stream: InputStream, events: any SheetXMLEvents) {
        self.stream = stream
        self.events = events
    }

    private enum Bail: Error { case bail, stop }

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

    /// The next byte; nil at the end of the part. A part that cannot be read is left to XMLParser,
    /// which reports why.
    private mutating func next() throws(Bail) -> UInt8? {
        if position == end {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
            guard count >= 0 else { throw .bail }
            if count == 0 { return nil }
            position = 0
            end = count
        }
        defer { position += 1 }
        return buffer[position]
    }

    private mutating func byte() throws(Bail) -> UInt8 {
        guard let byte = try next() else { throw .bail }
        return byte
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A
    }

    /// `byte`, or the first byte after it that is not white space.
    private mutating func skippingSpace(from byte: UInt8) throws(Bail) -> UInt8 {
        var byte = byte
        while Self.isSpace(byte) { byte = try self.byte() }
        return byte
    }

    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return !first
        default:
            return false
        }
    }

    private mutating func document() throws(Bail) {
        var open: [String] = []
        var text: [UInt8] = []
        var closedRoot = false
        var previous: (UInt8, UInt8) = (0, 0)
        while let byte = try next() {
            defer { atStart = false }
            guard text.count < Self.maxTextBytes else { throw .bail }
            switch byte {
            case UInt8(ascii: "<"):
                try flush(&text, inside: !open.isEmpty)
                previous = (0, 0)
                let first = try self.byte()
                if first == UInt8(ascii: "/") {
                    let (name, after) = try name(startingWith: try self.byte())
                    guard try skippingSpace(from: after) == UInt8(ascii: ">"), open.last == name else { throw .bail }
                    open.removeLast()
                    closedRoot = open.isEmpty
                    guard events.ended(name) else { throw .stop }
                } else if first == UInt8(ascii: "?") && atStart {
                    try declaration()
                } else {
                    guard !closedRoot else { throw .bail }
                    let (name, attributes, empty) = try startTag(startingWith: first)
                    guard events.started(name, attributes) else { throw .stop }
                    if empty {
                        closedRoot = open.isEmpty
                        guard events.ended(name) else { throw .stop }
                    } else {
                        guard open.count < Self.maxDepth else { throw .bail }
                        open.append(name)
                    }
                }
            case UInt8(ascii: "&"):
                guard !open.isEmpty else { throw .bail }
                try reference(into: &text)
                previous = (0, 0)
            case UInt8(ascii: ">"):
                // "]]>" may not stand in text.
                guard previous != (UInt8(ascii: "]"), UInt8(ascii: "]")) else { throw .bail }
                text.append(byte)
                previous = (previous.1, byte)
            default:
                guard byte >= 0x20 || byte == 0x09 || byte == 0x0A else { throw .bail }
                text.append(byte)
                previous = (previous.1, byte)
            }
        }
        guard closedRoot, text.allSatisfy(Self.isSpace) else { throw .bail }
    }

    /// Hands over the text before a tag: inside the root element as it is, outside only white space.
    private func flush(_ text: inout [UInt8], inside: Bool) throws(Bail) {
        guard !text.isEmpty else { return }
        defer { text.removeAll(keepingCapacity: true) }
        guard inside else {
            guard text.allSatisfy(Self.isSpace) else { throw .bail }
            return
        }
        guard events.found(try Self.string(text)) else { throw .stop }
    }

    private static func isNonCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }

    /// The text of UTF-8 bytes; invalid UTF-8, and the two non-characters XML forbids, are left to
    /// XMLParser. Decoding repairs what is invalid, so the bytes were valid when the text holds
    /// exactly them.
    private static func string(_ bytes: [UInt8]) throws(Bail) -> String {
        let string = String(decoding: bytes, as: UTF8.self)
        if !bytes.contains(where: { $0 >= 0x80 }) { return string }
        guard string.utf8.count == bytes.count, string.utf8.elementsEqual(bytes),
              !string.unicodeScalars.contains(where: isNonCharacter) else { throw .bail }
        return string
    }

    /// A name from its first byte on, and the byte after it.
    private mutating func name(startingWith first: UInt8) throws(Bail) -> (String, UInt8) {
        guard Self.isNameByte(first, first: true) else { throw .bail }
        nameBytes.removeAll(keepingCapacity: true)
        nameBytes.append(first)
        while true {
            let byte = try self.byte()
            guard Self.isNameByte(byte, first: false) else {
                return (String(decoding: nameBytes, as: UTF8.self), byte)
            }
            guard nameBytes.count < Self.maxNameBytes else { throw .bail }
            nameBytes.append(byte)
        }
    }

    private mutating func startTag(startingWith first: UInt8) throws(Bail) -> (String, SheetAttributes, Bool) {
        let (name, after) = try name(startingWith: first)
        var attributes = SheetAttributes()
        var byte = after
        while true {
            let spaced = Self.isSpace(byte)
            byte = try skippingSpace(from: byte)
            if byte == UInt8(ascii: ">") { return (name, attributes, false) }
            if byte == UInt8(ascii: "/") {
                guard try self.byte() == UInt8(ascii: ">") else { throw .bail }
                return (name, attributes, true)
            }
            guard spaced else { throw .bail }
            let (attribute, afterName) = try self.name(startingWith: byte)
            guard try skippingSpace(from: afterName) == UInt8(ascii: "=") else { throw .bail }
            let quote = try skippingSpace(from: try self.byte())
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw .bail }
            let value = try attributeValue(closedBy: quote)
            guard attributes.pairs.count < Self.maxAttributes, attributes[attribute] == nil,
                  Self.isPlainDeclaration(attribute, value) else { throw .bail }
            attributes.pairs.append((attribute, value))
            byte = try self.byte()
        }
    }

    /// Whether an attribute is no namespace declaration, or one XMLParser hands over as it stands
    /// (it drops those that bind a reserved prefix or name, or unbind a prefix).
    private static func isPlainDeclaration(_ name: String, _ value: String) -> Bool {
        guard name == "xmlns" || name.hasPrefix("xmlns:") else { return true }
        let reserved = ["http://www.w3.org/2000/xmlns/", "http://www.w3.org/XML/1998/namespace"]
        return !value.isEmpty && !reserved.contains(value) && name != "xmlns:xml" && name != "xmlns:xmlns"
    }

    /// An attribute's value up to its closing quote. White space other than spaces would be
    /// normalised by XML's rules: left to XMLParser.
    private mutating func attributeValue(closedBy quote: UInt8) throws(Bail) -> String {
        var bytes = valueBytes
        valueBytes = []
        bytes.removeAll(keepingCapacity: true)
        defer { valueBytes = bytes }
        while true {
            let byte = try self.byte()
            switch byte {
            case quote:
                return try Self.string(bytes)
            case UInt8(ascii: "&"):
                try reference(into: &bytes)
            case UInt8(ascii: "<"):
                throw .bail
            default:
                guard byte >= 0x20, bytes.count < Self.maxValueBytes else { throw .bail }
                bytes.append(byte)
            }
        }
    }

    /// An entity or character reference after its `&`, appended as UTF-8.
    private mutating func reference(into bytes: inout [UInt8]) throws(Bail) {
        var name: [UInt8] = []
        while true {
            let byte = try self.byte()
            if byte == UInt8(ascii: ";") { break }
            guard name.count < 10 else { throw .bail }
            name.append(byte)
        }
        switch String(decoding: name, as: UTF8.self) {
        case "lt": bytes.append(UInt8(ascii: "<"))
        case "gt": bytes.append(UInt8(ascii: ">"))
        case "amp": bytes.append(UInt8(ascii: "&"))
        case "quot": bytes.append(UInt8(ascii: "\""))
        case "apos": bytes.append(UInt8(ascii: "'"))
        case let reference where reference.hasPrefix("#"):
            let hex = reference.dropFirst().hasPrefix("x")
            let digits = reference.dropFirst(hex ? 2 : 1)
            let allowed = hex ? "0123456789abcdefABCDEF" : "0123456789"
            guard !digits.isEmpty, digits.allSatisfy(allowed.contains), let value = UInt32(digits, radix: hex ? 16 : 10),
                  value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                      || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value),
                  let scalar = Unicode.Scalar(value)
            else { throw .bail }
            UTF8.encode(scalar) { bytes.append($0) }
        default:
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
            guard bytes.count < 200, byte >= 0x20 || Self.isSpace(byte) else { throw .bail }
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
