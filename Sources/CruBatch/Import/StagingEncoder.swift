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
        var cells = [String(line)]
        cells.reserveCapacity(values.count + 1)
        for (index, value) in values.enumerated() {
            guard let value else {
                cells.append("")
                continue
            }
            if case .list = spec.columns[index].type {
                cells.append(Self.arrayLiteral(value.split(separator: ";").map(String.init)))
            } else {
                cells.append(value)
            }
        }
        writer.append(cells, to: &output)
    }

    /// A PostgreSQL array literal with every element quoted: `{"a","b \"c\""}`.
    static func arrayLiteral(_ elements: [String]) -> String {
        "{" + elements.map { element in
            "\"" + element.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }
}
