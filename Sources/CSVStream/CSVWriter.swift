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
        let utf8 = cell.utf8
        let neutralize = neutralizeFormulas && utf8.first.map(Self.formulaStarters.contains) == true
        guard utf8.contains(where: { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
            if neutralize { output.append(UInt8(ascii: "'")) }
            output.append(contentsOf: utf8)
            return
        }
        output.append(0x22)
        if neutralize { output.append(UInt8(ascii: "'")) }
        for byte in utf8 {
            if byte == 0x22 { output.append(0x22) }
            output.append(byte)
        }
        output.append(0x22)
    }

    private static let formulaStarters: Set<UInt8> = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D,
    ]
}
