import PostgresClient
import CSVStream

/// Encodes validated rows as the CSV that `COPY stage FROM STDIN (FORMAT csv)` reads: the line
/// number first, then each column; blank values are unquoted empty cells, which COPY reads as NULL.
/// Lists stay `a;b` text (their values cannot contain `;`) and are split in SQL.
struct StagingEncoder {
    let spec: KindSpec
    private let writer = CSVWriter()

    /// `create unlogged table stage (...)` for the kind's columns, in the run's `WorkSchema`.
    var createTable: PostgresQuery {
        let columns = spec.columns.map { column -> SQLFragment in "\(identifier: column.name) \(column.type.stagingSQLType)" }
        return "create unlogged table stage (line integer not null, \(unescaped: SQLFragment(joining: columns, separator: ", ")))"
    }

    var copySQL: PostgresQuery { "copy stage from stdin (format csv)" }

    func append(line: Int, values: [String?], to output: inout [UInt8]) {
        output.append(contentsOf: String(line).utf8)
        for value in values {
            output.append(UInt8(ascii: ","))
            if let value { writer.appendCell(value, to: &output) }
        }
        output.append(0x0D)
        output.append(0x0A)
    }
}
