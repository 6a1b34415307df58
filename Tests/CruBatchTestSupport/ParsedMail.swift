import Foundation

/// An email message taken apart, enough to check what the mailer rendered and what the SMTP sink
/// stored: headers unfolded, encoded words decoded on request, the quoted-printable body decoded.
public struct ParsedMail {
    /// (name, raw unfolded value) in order.
    public private(set) var headers: [(String, String)]
    /// The body as sent (still quoted-printable), with LF line ends.
    private let rawBody: String

    public init(_ bytes: [UInt8]) {
        self.init(String(decoding: bytes, as: UTF8.self))
    }

    public init(_ text: String) {
        let text = text.replacingOccurrences(of: "\r\n", with: "\n")
        let split = text.range(of: "\n\n")
        let head = split.map { String(text[..<$0.lowerBound]) } ?? text
        rawBody = split.map { String(text[$0.upperBound...]) } ?? ""
        headers = []
        for line in head.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
                headers[headers.count - 1].1 += String(line) // unfold: drop the line break only
            } else if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].drop { $0 == " " }
                headers.append((String(line[..<colon]), String(value)))
            }
        }
    }

    /// The raw (unfolded, undecoded) value of the first header called `name`.
    public func raw(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The decoded value of the first header called `name`.
    public func header(_ name: String) -> String? {
        raw(name).map(decodeEncodedWords)
    }

    /// The body, quoted-printable decoded, with LF line ends.
    public var body: String {
        decodeQuotedPrintable(rawBody)
    }
}

/// Decodes the encoded words of a header value, `=?UTF-8?B?…?=` (base64) and `=?UTF-8?Q?…?=`
/// (quoted-printable, `_` for a space); white space between two encoded words is dropped.
public func decodeEncodedWords(_ value: String) -> String {
    var result = ""
    var pendingSpace = ""
    var previousWasEncoded = false
    var index = value.startIndex
    while index < value.endIndex {
        if value[index] == " " || value[index] == "\t" {
            pendingSpace.append(value[index])
            index = value.index(after: index)
            continue
        }
        let end = value[index...].firstIndex { $0 == " " || $0 == "\t" } ?? value.endIndex
        let token = String(value[index..<end])
        if let decoded = decodeEncodedWord(token) {
            if !previousWasEncoded { result += pendingSpace }
            result += decoded
            previousWasEncoded = true
        } else {
            result += pendingSpace + token
            previousWasEncoded = false
        }
        pendingSpace = ""
        index = end
    }
    return result + pendingSpace
}

private func decodeEncodedWord(_ token: String) -> String? {
    guard token.hasPrefix("=?"), token.hasSuffix("?="), token.count > 4 else { return nil }
    let parts = token.dropFirst(2).dropLast(2).split(separator: "?", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].uppercased() == "UTF-8" else { return nil }
    switch parts[1].uppercased() {
    case "B":
        guard let data = Data(base64Encoded: String(parts[2])) else { return nil }
        return String(decoding: data, as: UTF8.self)
    case "Q":
        return decodeQuotedPrintable(parts[2].replacingOccurrences(of: "_", with: " "))
    default:
        return nil
    }
}

/// Decodes quoted-printable text (soft breaks `=` + line end, `=XX` escapes); line ends become LF.
func decodeQuotedPrintable(_ text: String) -> String {
    let bytes = Array(text.replacingOccurrences(of: "\r\n", with: "\n").utf8)
    var output: [UInt8] = []
    var index = 0
    func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
    while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x3D {
            if index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 2
                continue
            }
            if index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
                continue
            }
        }
        output.append(byte)
        index += 1
    }
    return String(decoding: output, as: UTF8.self)
}
