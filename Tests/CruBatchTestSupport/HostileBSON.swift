import Foundation

/// BSON bytes written by hand, for documents no driver would encode.
public enum HostileBSON {
    /// `{"a": {"a": ... {}}}` with `levels` documents inside the top one.
    public static func nested(levels: Int) -> Data {
        // Each level is its length, the element's type and key, the level inside, and its own end.
        var bytes = Data()
        for level in 0..<levels { bytes += int32(5 + 8 * (levels - level)) + Data([0x03, UInt8(ascii: "a"), 0]) }
        return bytes + document([]) + Data(repeating: 0, count: levels)
    }

    public static func document(_ elements: [Data]) -> Data {
        let body = elements.reduce(Data(), +) + Data([0])
        return int32(body.count + 4) + body
    }

    public static func document(_ key: String, _ elements: [Data]) -> Data {
        element(type: 0x03, key, document(elements))
    }

    /// A UTF-8 string element holding `bytes` as they are.
    public static func string(_ key: String, _ bytes: [UInt8]) -> Data {
        element(type: 0x02, key, int32(bytes.count + 1) + Data(bytes) + Data([0]))
    }

    private static func element(type: UInt8, _ key: String, _ value: Data) -> Data {
        Data([type]) + Data(key.utf8) + Data([0]) + value
    }

    private static func int32(_ value: Int) -> Data {
        withUnsafeBytes(of: Int32(value).littleEndian) { Data($0) }
    }
}
