/// ASCII letters and digits told and cased byte by byte, without Unicode's tables: for text known to
/// be ASCII, where they agree with them (cell values, pickup texts).
extension UInt8 {
    /// A digit, 0 to 9.
    var isASCIIDigit: Bool { (0x30...0x39).contains(self) }

    /// A letter A to Z.
    var isASCIIUppercaseLetter: Bool { (0x41...0x5A).contains(self) }

    /// A letter a to z.
    var isASCIILowercaseLetter: Bool { (0x61...0x7A).contains(self) }

    /// An ASCII letter or digit.
    var isASCIIAlphanumeric: Bool { isASCIIDigit || isASCIIUppercaseLetter || isASCIILowercaseLetter }

    /// An upper-case ASCII letter made lower case; any other byte as it is.
    var asciiLowercased: UInt8 { isASCIIUppercaseLetter ? self | 0x20 : self }

    /// A lower-case ASCII letter made upper case; any other byte as it is.
    var asciiUppercased: UInt8 { isASCIILowercaseLetter ? self & ~0x20 : self }
}
