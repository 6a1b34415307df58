/// The encodings a CSV file may come in. Spreadsheets on Windows still save Windows-1252.
public enum TextEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    case windows1252 = "windows-1252"
}

/// Byte-level checks and conversions the reader applies before parsing.
enum ByteScan {
    /// The first problem in `bytes`: an invalid UTF-8 sequence or a NUL byte, with its offset.
    enum Problem: Equatable {
        case invalidUTF8(offset: Int, byte: UInt8)
        case nul(offset: Int)
    }

    /// Validates UTF-8 and rejects NUL. Runs 8 bytes at a time over ASCII, which is nearly all of a CSV.
    static func firstProblem(in bytes: UnsafeRawBufferPointer) -> Problem? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        var i = 0
        while i < count {
            if i + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let hasHigh = word & 0x8080_8080_8080_8080 != 0
                let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
                if !hasHigh && !hasZero {
                    i += 8
                    continue
                }
            }
            let byte = bytes[i]
            if byte == 0 { return .nul(offset: i) }
            if byte < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF: length = 2; scalar = UInt32(byte & 0x1F); minimum = 0x80
            case 0xE0...0xEF: length = 3; scalar = UInt32(byte & 0x0F); minimum = 0x800
            case 0xF0...0xF4: length = 4; scalar = UInt32(byte & 0x07); minimum = 0x10000
            default: return .invalidUTF8(offset: i, byte: byte)
            }
            if i + length > count { return .invalidUTF8(offset: i, byte: byte) }
            for k in 1..<length {
                let next = bytes[i + k]
                guard next & 0xC0 == 0x80 else { return .invalidUTF8(offset: i, byte: byte) }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) {
                return .invalidUTF8(offset: i, byte: byte)
            }
            minimum = 0
            i += length
        }
        return nil
    }

    /// How many bytes at the end of `bytes` begin a UTF-8 sequence that the buffer cuts short.
    static func incompleteTailLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        var back = 1
        while back <= min(3, count) {
            let byte = bytes[count - back]
            if byte & 0xC0 == 0x80 {
                back += 1
                continue
            }
            let needed: Int
            switch byte {
            case 0xC0...0xDF: needed = 2
            case 0xE0...0xEF: needed = 3
            case 0xF0...0xF7: needed = 4
            default: return 0
            }
            return needed > back ? back : 0
        }
        return 0
    }

    /// Windows-1252 bytes 0x80-0x9F; the rest of the high half equals Latin-1.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Converts Windows-1252 to UTF-8, appending to `output`.
    static func transcodeWindows1252(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                output.append(byte)
                continue
            }
            let scalar = byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
            if scalar < 0x800 {
                output.append(UInt8(0xC0 | (scalar >> 6)))
                output.append(UInt8(0x80 | (scalar & 0x3F)))
            } else {
                output.append(UInt8(0xE0 | (scalar >> 12)))
                output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                output.append(UInt8(0x80 | (scalar & 0x3F)))
            }
        }
    }
}
