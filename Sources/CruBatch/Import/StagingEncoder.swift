import CSVStream

/// Encodes validated rows as the CSV that `COPY stage FROM STDIN (FORMAT csv)` reads: the line
/// number first, then each column; blank values are unquoted empty cells, which COPY reads as NULL.
struct StagingEncoder {
    let spec: KindSpec
    private let writer = CSVWriter()

    /// `create temp table stage (...)` for the kind's columns.
    var createTableSQL: String {
        let columns = spec.columns.map { "\"\($0.name)\" \($0.type.stagingSQLType)" }
        return "create temp table stage (line integer not null, \(columns.joined(separator: ", "))) on commit drop"
    }

    var copySQL: String { "copy stage from stdin (format csv)" }

    func append(line: Int, values: [String?], to output: inout [UInt8]) {
        output.append(contentsOf: String(line).utf8)
        for (index, value) in values.enumerated() {
            output.append(UInt8(ascii: ","))
            guard let value else { continue }
            if case .list = spec.columns[index].type {
                writer.appendCell(Self.arrayLiteral(value), to: &output)
            } else {
                writer.appendCell(value, to: &output)
            }
        }
        output.append(0x0D)
        output.append(0x0A)
    }

    /// A PostgreSQL array literal of a `;` list, every element quoted: `a;b "c"` -> `{"a","b \"c\""}`.
    static func arrayLiteral(_ list: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{"), 0x22]
        var text = list
        text.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: ";"): bytes.append(contentsOf: [0x22, UInt8(ascii: ","), 0x22])
                case 0x22, UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(contentsOf: [0x22, UInt8(ascii: "}")])
        return String(decoding: bytes, as: UTF8.self)
    }
}
