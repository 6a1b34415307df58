/// ASCII letters and digits told and cased byte by byte, without Unicode's tables: for text known to
/// be ASCII, where they agree with them (cell values, pickup texts).
extension UInt8 {
    /// An upper-case ASCII letter made lower case; any other byte as it is.
    var asciiLowercased: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }

    /// A lower-case ASCII letter made upper case; any other byte as it is.
    var asciiUppercased: UInt8 { (0x61...0x7A).contains(self) ? self & ~0x20 : self }

    /// An ASCII letter or digit.
    var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
