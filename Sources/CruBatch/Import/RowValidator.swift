import CSVStream

/// Normalises one row's cells into the values its kind stores, collecting every problem on the row.
struct RowValidator {
    let spec: KindSpec
    let mapping: HeaderMapping
    let file: String
    var dateOrder: DateOrder = .mdy
    /// What each row reads of each column the file has, in spec column order.
    private let cells: [Cell]
    /// The spec index of the grad_year column, if the kind has one.
    private let gradYearIndex: Int?

    /// One column of the spec as each row reads it: where its cell is in the file and what it holds.
    private struct Cell {
        let index: Int
        let position: Int
        let name: String
        let type: CellType
        let required: Bool
    }

    init(spec: KindSpec, mapping: HeaderMapping, file: String, dateOrder: DateOrder = .mdy) {
        self.spec = spec
        self.mapping = mapping
        self.file = file
        self.dateOrder = dateOrder
        cells = spec.columns.indices.compactMap { index in
            let column = spec.columns[index]
            return mapping.indexes[index].map {
                Cell(index: index, position: $0, name: column.name, type: column.type, required: column.required)
            }
        }
        gradYearIndex = spec.columns.firstIndex { $0.type == .gradYear }
    }

    /// The normalised values in spec column order (nil = blank, or a cell that could not be read)
    /// and every diagnostic of the row, warnings included. A row is rejected when any is an error;
    /// its readable cells still go to the database checks, so one run reports all its problems. A
    /// cell the row was read with a problem in (an event's unreadable DTSTART) is not read again. A
    /// whole name that `--map` splits gives first_name and last_name their texts (`FullName`).
    func validate(_ row: TableRow) -> RowCheck {
        var check = RowCheck(line: row.line, values: [String?](repeating: nil, count: spec.columns.count),
                             diagnostics: row.problems)
        let reported = row.problems.isEmpty ? [] : Set(row.problems.compactMap(\.field))
        var gradYear: (value: String, cell: String, position: Int)?
        let name = mapping.nameSplit.map { position in split(row, at: position, into: &check) }
        for column in cells {
            let index = column.index, position = column.position
            guard reported.isEmpty || !reported.contains(column.name) else { continue }
            func report(_ code: DiagnosticCode, _ message: String, hint: String?) {
                check.diagnostics.append(Diagnostic(file: file, line: row.line, column: position + 1, field: column.name,
                                                    code: code, message: message, hint: hint))
            }
            var text = row.cells[position]
            if position == mapping.nameSplit {
                guard let name = name.flatMap({ $0 }) else { continue }
                text = column.name == "first_name" ? name.first : name.last
            }
            do throws(CellProblem) {
                let reading = try CellNormalizer.read(text, as: column.type, dateOrder: dateOrder)
                check.values[index] = reading.value
                if let warning = reading.warning { report(warning.code, "\(column.name): \(warning.message)", hint: warning.hint) }
                if let year = reading.gradYear { gradYear = (year, CellNormalizer.trimmedNFC(row.cells[position]), position) }
                if reading.value == nil && column.required {
                    report(.missingValue, "\(column.name) is required but empty", hint: "fill in the \(column.name) cell")
                }
            } catch {
                report(error.code, "\(column.name): \(error.message)", hint: error.hint)
            }
        }
        if let gradYear, let index = gradYearIndex {
            apply(gradYear, to: index, in: &check)
        }
        return check
    }

    /// The whole name at `position` split into first and last name, its warning added to `check`; nil
    /// (and the error added) when it cannot be split.
    private func split(_ row: TableRow, at position: Int, into check: inout RowCheck) -> FullName? {
        func report(_ problem: CellProblem) {
            check.diagnostics.append(Diagnostic(file: file, line: row.line, column: position + 1, field: "last_name",
                                                code: problem.code, message: problem.message, hint: problem.hint))
        }
        do throws(CellProblem) {
            let name = try FullName.split(row.cells[position])
            name.warning.map(report)
            return name
        } catch {
            report(error)
            return nil
        }
    }

    /// `Class of 2028` in a school year cell fills an empty grad_year; a different one is an error.
    private func apply(_ gradYear: (value: String, cell: String, position: Int), to index: Int, in check: inout RowCheck) {
        guard let stated = check.values[index], stated != gradYear.value else {
            check.values[index] = gradYear.value
            return
        }
        let column = spec.columns[index].name
        check.diagnostics.append(Diagnostic(
            file: file, line: check.line, column: gradYear.position + 1, field: column, code: .outOfRange,
            message: "\"\(gradYear.cell)\" says \(column) \(gradYear.value), but the \(column) cell says \(stated)",
            hint: "correct one of the two cells"))
    }
}

/// One row after validation: its values and what is wrong with it (or worth a warning).
struct RowCheck {
    let line: Int
    var values: [String?]
    var diagnostics: [Diagnostic] = []

    var isRejected: Bool { diagnostics.contains { $0.severity == .error } }
}
