import CSVStream
import FileOutput
import PostgresClient
import SpreadsheetWriter

/// Rosters for people: a CSV file Excel opens as it is, or a workbook with one sheet per group.
extension Exporter {
    /// Per group a block: `Group`, `Ministry`, `Meets` and one `Leader` line each, then the member
    /// table under human headers, then a blank line. UTF-8 with a BOM, so Excel shows accents; a
    /// cell that would start a formula gets a leading `'` (a US phone, `(805) ...`, never does).
    public func exportPeopleRosterCSV(_ scope: ExportScope, to target: OutputTarget) throws -> ExportedFile {
        let sink = try ExportSink(target)
        let writer = CSVWriter(neutralizeFormulas: true)
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        var members = 0
        try PeopleRoster.forEachGroup(scope, connection: connection) { roster in
            for line in roster.titleBlock { writer.append(line, to: &bytes) }
            writer.append(PeopleRoster.headers, to: &bytes)
            for member in roster.members { writer.append(roster.cells(of: member), to: &bytes) }
            bytes += [0x0D, 0x0A]
            members += roster.members.count
            try sink.write(bytes, flush: false)
            bytes.removeAll(keepingCapacity: true)
        }
        try sink.write(bytes)
        return try sink.finish(rows: members)
    }

    /// An .xlsx workbook, one sheet per group (see `RosterWorkbook`): a regular file appears whole
    /// with mode 0600; standard output, a device or a pipe gets its bytes.
    public func exportRosterWorkbook(_ scope: ExportScope, to target: OutputTarget) throws -> ExportedFile {
        var members = 0
        let (bytes, digest) = try OutputFile(target).commit { path in
            do {
                members = try RosterWorkbook.write(scope, connection: connection, to: path)
            } catch let failure as XLSXWriter.Failure {
                // A full disk is the output's problem (73), not a defect in crubatch.
                guard let reason = failure.writeFailure else { throw failure }
                throw OutputError(path: target.path, reason: reason)
            }
        }
        return ExportedFile(file: target.path, rows: members, bytes: bytes, sha256: digest)
    }
}

/// The roster workbook: a sheet per group named after it (unique, at most 31 characters), the
/// title block, then the members under a frozen header row with filter buttons; joined dates are
/// real dates, every other cell typed text; columns sized for their content; printed landscape,
/// one page wide, the header row on every page.
enum RosterWorkbook {
    private static let label = XLSXWriter.Style(bold: true)
    private static let groupName = XLSXWriter.Style(bold: true, size: 14)
    private static let header = XLSXWriter.Style(bold: true)
    private static let date = XLSXWriter.Style(numberFormat: "yyyy-mm-dd")
    private static let widths: [Double] = [16, 24, 34, 20, 22, 16, 12]

    /// Writes the workbook to `path`; returns how many members it lists.
    static func write(_ scope: ExportScope, connection: PostgresConnection, to path: String) throws -> Int {
        let workbook = try XLSXWriter(path: path)
        var members = 0
        var sheets = 0
        try PeopleRoster.forEachGroup(scope, connection: connection) { roster in
            try addSheet(roster, to: workbook)
            members += roster.members.count
            sheets += 1
        }
        if sheets == 0 {
            try workbook.addSheet(named: "Roster").write("No groups", row: 0, column: 0, style: label)
        }
        try workbook.close()
        return members
    }

    private static func addSheet(_ roster: PeopleRoster, to workbook: XLSXWriter) throws {
        let sheet = try workbook.addSheet(named: roster.name)
        for (column, width) in widths.enumerated() { try sheet.setWidth(width, columns: column...column) }
        for (row, line) in roster.titleBlock.enumerated() {
            for (column, text) in line.enumerated() {
                try sheet.write(text, row: row, column: column, style: column == 0 ? label : row == 0 ? groupName : nil)
            }
        }
        let headerRow = roster.titleBlock.count + 1
        for (column, title) in PeopleRoster.headers.enumerated() {
            try sheet.write(title, row: headerRow, column: column, style: header)
        }
        for (offset, member) in roster.members.enumerated() {
            let row = headerRow + 1 + offset
            for (column, text) in roster.cells(of: member).dropLast().enumerated() {
                try sheet.write(text, row: row, column: column)
            }
            if let joined = member.joined {
                try sheet.write(year: joined.year, month: joined.month, day: joined.day, row: row,
                                column: PeopleRoster.headers.count - 1, style: date)
            }
        }
        let columns = 0...(PeopleRoster.headers.count - 1)
        sheet.freezeRows(above: headerRow + 1)
        try sheet.autofilter(headerRow: headerRow, lastRow: headerRow + max(roster.members.count, 1), columns: columns)
        try sheet.printLandscape(repeatingRow: headerRow)
    }
}
