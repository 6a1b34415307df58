/// Writes RFC 4180 CSV: CRLF line ends, cells quoted only when they must be.
///
/// With `neutralizeFormulas`, cells that a spreadsheet would run as a formula (starting with
/// `=` `+` `-` `@` TAB or CR) get a leading `'` (OWASP CSV injection).
public struct CSVWriter {
    public var delimiter: UInt8
    public var neutralizeFormulas: Bool

    public init(delimiter: UInt8 = UInt8(ascii: ","), neutralizeFormulas: Bool = false) {
        self.delimiter = delimiter
        self.neutralizeFormulas = neutralizeFormulas
    }

    /// Appends one record, CRLF-terminated, to `output`.
    public func append(_ cells: [String], to output: inout [UInt8]) {
        if cells.count == 1 && cells[0].isEmpty {
            // A lone empty cell written bare would be an empty line, which readers skip as blank.
            output.append(contentsOf: [0x22, 0x22, 0x0D, 0x0A])
            return
        }
        for (index, cell) in cells.enumerated() {
            if index > 0 { output.append(delimiter) }
            appendCell(cell, to: &output)
        }
        output.append(0x0D)
        output.append(0x0A)
    }

    /// One record as a string (for tests and small outputs).
    public func line(_ cells: [String]) -> String {
        var bytes: [UInt8] = []
        append(cells, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one cell (quoted only when it must be), without a delimiter or line end.
    public func appendCell(_ cell: String, to output: inout [UInt8]) {
        var text = cell
        text.withUTF8 { bytes in
            let neutralize = neutralizeFormulas && bytes.first.map(Self.startsFormula) == true
            var needsQuotes = false
            for byte in bytes where byte == delimiter || byte == 0x22 || byte == 0x0A || byte == 0x0D {
                needsQuotes = true
                break
            }
            if needsQuotes { output.append(0x22) }
            if neutralize { output.append(UInt8(ascii: "'")) }
            if needsQuotes {
                for byte in bytes {
                    if byte == 0x22 { output.append(0x22) }
                    output.append(byte)
                }
                output.append(0x22)
            } else {
                output.append(contentsOf: bytes)
            }
        }
    }

    /// `=` `+` `-` `@` TAB or CR: what a spreadsheet reads as the start of a formula.
    private static func startsFormula(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
        default: false
        }
    }
}
