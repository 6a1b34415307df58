import CSVStream

/// Normalises one row's cells into the values its kind stores, collecting every problem on the row.
struct RowValidator {
    let spec: KindSpec
    let mapping: HeaderMapping
    let file: String

    /// The normalised values in spec column order (nil = blank), or the row's diagnostics.
    func validate(_ row: TableRow) -> Result<[String?], RowRejection> {
        var problems = row.problems
        var values = [String?](repeating: nil, count: spec.columns.count)
        for (index, column) in spec.columns.enumerated() {
            guard let position = mapping.indexes[index] else { continue }
            do throws(CellProblem) {
                values[index] = try CellNormalizer.normalize(row.cells[position], as: column.type)
                if values[index] == nil && column.required {
                    problems.append(Diagnostic(file: file, line: row.line, column: position + 1, field: column.name,
                                               code: .missingValue, message: "\(column.name) is required but empty",
                                               hint: "fill in the \(column.name) cell"))
                }
            } catch {
                problems.append(Diagnostic(file: file, line: row.line, column: position + 1, field: column.name,
                                           code: error.code, message: "\(column.name): \(error.message)", hint: error.hint))
            }
        }
        return problems.isEmpty ? .success(values) : .failure(RowRejection(line: row.line, diagnostics: problems))
    }
}

/// A rejected row: its line and why.
struct RowRejection: Error {
    let line: Int
    let diagnostics: [Diagnostic]
}
