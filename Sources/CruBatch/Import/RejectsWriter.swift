import FileOutput
import CSVStream

/// Writes the rejects file: the original header and cells of each rejected row plus
/// `error_line,error_code,error_message`, so staff fix the cells and import the file as it is.
/// It is CSV whatever the input was (for a workbook, `error_line` is the sheet's row number).
/// It reads the input a second time rather than keeping rows in memory.
struct RejectsWriter {
    let options: ImportOptions

    /// One file to `path`, or for several files one `KIND.csv` per kind inside the folder `path`.
    func write(results: [KindLoadResult], sources: [Source], to path: String) throws {
        for (result, source) in zip(results, sources) where !result.rejectedLines.isEmpty {
            let target = sources.count > 1 ? path + "/" + source.kind.fileName : path
            try write(result: result, source: source, to: target)
        }
    }

    typealias Source = Importer.Source

    private func write(result: KindLoadResult, source: Source, to target: String) throws {
        let table = try options.openTable(path: source.path, displayName: source.path)
        let ignored = Set(HeaderMapping.rejectColumns.map(TableHeader.normalizedName))
        let kept = table.header.indices.filter { !ignored.contains(TableHeader.normalizedName(table.header[$0])) }
        var firstError: [Int: Diagnostic] = [:]
        for diagnostic in result.diagnostics where diagnostic.severity == .error && firstError[diagnostic.line] == nil {
            firstError[diagnostic.line] = diagnostic
        }
        let file = try OutputFile(try OutputTarget(target))
        let writer = CSVWriter()
        var buffer: [UInt8] = []
        writer.append(kept.map { table.header[$0] } + HeaderMapping.rejectColumns, to: &buffer)
        while let row = try table.next() {
            guard result.rejectedLines.contains(row.line), let error = firstError[row.line] else { continue }
            let cells = kept.map { $0 < row.originalCells.count ? row.originalCells[$0] : "" }
            writer.append(cells + [String(row.line), error.code.rawValue, error.message], to: &buffer)
            if buffer.count > 1 << 16 {
                try file.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try file.write(buffer)
        try file.commit()
    }
}
