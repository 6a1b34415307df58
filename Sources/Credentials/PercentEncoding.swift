/// `%XX` escapes of URLs, on UTF-8 bytes.
enum PercentEncoding {
    static let upperHex = Array("0123456789ABCDEF".utf8)
    static let lowerHex = Array("0123456789abcdef".utf8)

    /// `bytes` with %XX escapes decoded; a malformed escape stays as it is.
    static func decoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// `bytes` with everything but letters, digits and `-._~` escaped, in the given hex digits.
    static func encoded(_ bytes: [UInt8], hexDigits: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        for byte in bytes {
            let unreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
            if unreserved {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
