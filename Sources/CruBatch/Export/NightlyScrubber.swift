import CSVStream
import FileOutput
import Foundation
import SpreadsheetReader

/// A forgotten person as nightly wrote them (what the database held before the erasure) and as
/// the database holds them now (the placeholders), for `NightlyScrubber`.
struct ForgottenPerson: Sendable {
    /// Their email and the emails merged into them (`people merge`), lower case: nightly wrote any.
    let emails: Set<String>
    let firstName: String
    let lastName: String
    /// The phone's digits (E.164 without the `+`), if they had one.
    let phoneDigits: String?
    let placeholderEmail: String
    let placeholderName: String
    let placeholderPhone: String

    var fullName: String { firstName + " " + lastName }

    /// Whether one cell holds them: one of their emails (any case), their full name, or their
    /// phone in any layout people write it.
    func isNamed(by cell: String) -> Bool {
        let value = Self.unguarded(cell)
        return emails.contains(value.lowercased()) || value == fullName || isTheirPhone(value)
    }

    /// Whether a record holds them: an email of theirs or their phone, or their name (full, or first and last side
    /// by side) on a record that gives no one else's email or phone (a namesake's row stays).
    func isIn(_ cells: [String]) -> Bool {
        let values = cells.map(Self.unguarded)
        if values.contains(where: { emails.contains($0.lowercased()) || isTheirPhone($0) }) { return true }
        let named = values.contains(fullName)
            || zip(values, values.dropFirst()).contains { $0 == firstName && $1 == lastName }
        return named && !values.contains { $0.contains("@") || Self.phoneDigits(of: $0) != nil }
    }

    /// A cell as the database held it: without the spaces around it, and without the `'` a roster
    /// puts before a cell a spreadsheet would run as a formula (`'+18055550123`).
    static func unguarded(_ cell: String) -> String {
        let value = cell.trimmingCharacters(in: .whitespaces)
        return value.hasPrefix("'") ? String(value.dropFirst()) : value
    }

    private func isTheirPhone(_ value: String) -> Bool {
        guard let phoneDigits, let digits = Self.phoneDigits(of: value) else { return false }
        return digits == phoneDigits || "1" + digits == phoneDigits
    }

    /// The digits of a cell that is a phone in some layout (at least ten digits, nothing but digits,
    /// spaces and `+-().`), else nil.
    static func phoneDigits(of value: String) -> String? {
        guard value.allSatisfy({ $0.isNumber || " +-().".contains($0) }) else { return nil }
        let digits = value.filter(\.isNumber)
        return digits.count >= 10 ? digits : nil
    }

    /// A list cell (`a@x.edu;b@y.edu`, `Ann Lee; Bo Park`) with their items replaced by what the
    /// database now holds; an item with no placeholder (a student's phone) is dropped.
    func replacingItems(of cell: String) -> String {
        let items = cell.split(separator: ";", omittingEmptySubsequences: false).compactMap { item -> String? in
            guard isNamed(by: String(item)) else { return String(item) }
            let lead = item.prefix(while: { $0 == " " })
            let value = Self.unguarded(String(item))
            let replacement = emails.contains(value.lowercased()) ? placeholderEmail
                : value == fullName ? placeholderName : placeholderPhone
            return replacement.isEmpty ? nil : lead + replacement
        }
        return items.joined(separator: ";")
    }
}

/// What `forget` did to the kept nightly folders; the paths are relative to the nightly folder
/// (`2026-11-24/rosters/all.csv`).
public struct NightlyCleanup: Sendable, Encodable {
    public var directory: String
    /// The dated folders checked, newest first.
    public var folders: [String] = []
    public var rewritten: [String] = []
    /// Workbooks removed (and listed under `errors` in their manifest).
    public var removed: [String] = []
    /// `path: reason` for each file or manifest that could not be cleaned.
    public var failures: [String] = []
}

/// Takes a forgotten person out of the dated folders `nightly` keeps (and so out of `latest`, a
/// link to one of them): rows that hold them are removed from the CSV files (rosters, data, rides),
/// their entries in a leaders list are replaced by the placeholders the database now holds, and a
/// roster workbook that holds them is removed and listed under `errors` in its manifest (the next
/// nightly writes it again). Each file is rewritten through an `AtomicFile`, then the folder's
/// manifest gets the files' new rows, bytes and SHA-256. Calendars hold no people and are not read.
/// Symbolic links in the folder are never followed.
struct NightlyScrubber {
    /// The subfolders nightly writes people into; `calendars` holds events and meetings only.
    static let subfolders = ["rosters", "data", "rides"]

    let directory: String
    let person: ForgottenPerson

    func run() -> NightlyCleanup {
        var outcome = NightlyCleanup(directory: directory)
        let folders: [String]
        do {
            folders = try NightlyExport.datedFolders(in: directory).filter { isRealFolder(directory + "/" + $0) }
        } catch {
            outcome.failures.append("\(directory): cannot list the folder: \(error)")
            return outcome
        }
        for folder in folders {
            outcome.folders.append(folder)
            scrub(folder: folder, into: &outcome)
        }
        return outcome
    }

    private func scrub(folder: String, into outcome: inout NightlyCleanup) {
        let root = directory + "/" + folder
        var rewritten: [String: RewrittenFile] = [:]
        var removed: [String] = []
        for subfolder in Self.subfolders where isRealFolder(root + "/" + subfolder) {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: root + "/" + subfolder)
            } catch {
                outcome.failures.append("\(folder)/\(subfolder): cannot list the folder: \(error.localizedDescription)")
                continue
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let relative = subfolder + "/" + name
                let path = root + "/" + relative
                guard isRegularFile(path) else { continue }
                do {
                    if name.hasSuffix(".xlsx") {
                        if try workbookHoldsPerson(path) {
                            guard unlink(path) == 0 else { throw OutputError.fromErrno(path) }
                            removed.append(relative)
                        }
                    } else if name.hasSuffix(".csv"),
                              let file = try rewriteCSV(path, hasHeader: subfolder != "rides",
                                                        guardsFormulas: subfolder != "data") {
                        rewritten[relative] = file
                    }
                } catch {
                    outcome.failures.append("\(folder)/\(relative): \(error)")
                }
            }
        }
        outcome.rewritten += rewritten.keys.sorted().map { folder + "/" + $0 }
        outcome.removed += removed.map { folder + "/" + $0 }
        guard !rewritten.isEmpty || !removed.isEmpty else { return }
        do {
            try updateManifest(root + "/manifest.json", rewritten: rewritten, removed: removed)
        } catch {
            outcome.failures.append("\(folder)/manifest.json: \(error)")
        }
    }

    /// Rewrites a CSV file without the records that hold the person; returns its new size, checksum
    /// and count of data rows lost, or nil when it does not hold them. Records that do not change
    /// keep their bytes; a changed one is written as the file wrote it (its line end, and a `'`
    /// before a cell a spreadsheet would run, in the files for people: `guardsFormulas`). In a file
    /// with a header, the columns about leaders are lists whose items are replaced.
    private func rewriteCSV(_ path: String, hasHeader: Bool, guardsFormulas: Bool) throws -> RewrittenFile? {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var lineStarts = [0]
        for (index, byte) in bytes.enumerated() where byte == 0x0A && index + 1 < bytes.count {
            lineStarts.append(index + 1)
        }
        func span(fromLine first: Int, toLine next: Int?) -> ArraySlice<UInt8> {
            bytes[lineStarts[first - 1]..<(next.map { lineStarts[$0 - 1] } ?? bytes.count)]
        }
        let reader = try CSVReader(path: path, options: CSVReader.Options(delimiter: UInt8(ascii: ",")))
        var events: [(line: Int, fields: [String]?)] = []
        while let event = try reader.next() {
            switch event {
            case .record(let record): events.append((record.line, record.fields))
            case .blankLine(let line): events.append((line, nil))
            }
        }
        var listColumns: Set<Int> = []
        if hasHeader, let header = events.first?.fields {
            listColumns = Set(header.indices.filter { TableHeader.normalizedName(header[$0]).contains("leader") })
        }
        var output: [UInt8] = []
        var removedRows = 0
        var changed = false
        for (index, event) in events.enumerated() {
            let raw = span(fromLine: event.line, toLine: index + 1 < events.count ? events[index + 1].line : nil)
            guard let fields = event.fields, !(hasHeader && index == 0) else {
                output += raw
                continue
            }
            let plain = fields.indices.filter { !listColumns.contains($0) }.map { fields[$0] }
            if person.isIn(plain) {
                removedRows += 1
                changed = true
                continue
            }
            let replaced = fields.indices.map {
                listColumns.contains($0) ? person.replacingItems(of: fields[$0]) : fields[$0]
            }
            if replaced == fields {
                output += raw
            } else {
                var record: [UInt8] = []
                CSVWriter(neutralizeFormulas: guardsFormulas).append(replaced, to: &record)
                // CSVWriter ends a record with CRLF; COPY's files end theirs with LF.
                if !raw.reversed().starts(with: [0x0A, 0x0D]) { record.remove(at: record.count - 2) }
                output += record
                changed = true
            }
        }
        guard changed else { return nil }
        let file = try AtomicFile(path: path)
        try file.write(output)
        let (size, digest) = try file.commit()
        // Rides files count cars, which stay; the other files count data rows.
        return RewrittenFile(bytes: size, sha256: digest, removedRows: hasHeader ? removedRows : 0)
    }

    /// Whether any cell of any sheet of a workbook holds the person.
    private func workbookHoldsPerson(_ path: String) throws -> Bool {
        for sheet in try XLSXWorkbook(path: path).sheets {
            let reader = try XLSXTableReader(path: path, sheet: sheet.name)
            if person.isIn(reader.header) { return true }
            while let row = try reader.next() {
                if person.isIn(row.originalCells) { return true }
            }
        }
        return false
    }

    /// Writes the folder's manifest again (as nightly writes it): rewritten files get their new
    /// size, checksum and rows, removed workbooks move to `errors`.
    private func updateManifest(_ path: String, rewritten: [String: RewrittenFile], removed: [String]) throws {
        guard isRegularFile(path) else { throw OutputError(path: path, reason: "missing or not a regular file") }
        var manifest = try NightlyExport.Manifest.read(from: path)
        manifest.files = manifest.files.compactMap { entry in
            if removed.contains(entry.file) { return nil }
            guard let new = rewritten[entry.file] else { return entry }
            var updated = entry
            updated.rows -= new.removedRows
            updated.bytes = new.bytes
            updated.sha256 = new.sha256
            return updated
        }
        manifest.errors += removed.map {
            NightlyExport.SkippedFile(file: $0, error: "removed by forget: it held a forgotten person")
        }
        try manifest.write(to: path)
    }

    /// A CSV file as `rewriteCSV` left it: its new size and checksum, and how many data rows it lost.
    private struct RewrittenFile {
        let bytes: Int
        let sha256: String
        let removedRows: Int
    }

    private func isRealFolder(_ path: String) -> Bool { fileType(path) == S_IFDIR }
    private func isRegularFile(_ path: String) -> Bool { fileType(path) == S_IFREG }

    /// The type of what is at `path` itself (a symbolic link is a link, never what it points to).
    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }
}
