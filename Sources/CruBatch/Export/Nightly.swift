import FileOutput
import CSVStream
import Foundation
import PostgresClient

/// The nightly job: every roster, every kind and the calendars into `DIR/YYYY-MM-DD/` with a
/// `manifest.json`, built in a temporary folder and renamed into place in one step, so a failure
/// leaves no dated folder and the previous one untouched. `DIR/latest` points to the newest.
public struct NightlyExport {
    /// The manifest: what each file holds and its checksum.
    public struct Manifest: Codable, Sendable {
        public var date: String
        public var crubatchVersion: String
        public var files: [ExportedFile]
    }

    let connection: PostgresConnection
    let outputDirectory: String
    let keep: Int
    let date: Date
    let calendar = Calendar(identifier: .gregorian)

    public init(connection: PostgresConnection, outputDirectory: String, keep: Int, date: Date) {
        self.connection = connection
        self.outputDirectory = outputDirectory
        self.keep = keep
        self.date = date
    }

    /// The dated folder's name for a day: `YYYY-MM-DD`.
    public static func folderName(for date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// Runs the export; returns the dated folder and its manifest.
    public func run() throws -> (folder: String, manifest: Manifest) {
        let fileManager = FileManager.default
        try create(outputDirectory)
        let name = Self.folderName(for: date)
        let final = outputDirectory + "/" + name
        let temporary = outputDirectory + "/.\(name).\(getpid()).partial"
        try? fileManager.removeItem(atPath: temporary)
        do {
            let manifest = try export(into: temporary, date: name)
            try replace(final, with: temporary)
            try pointLatest(at: name)
            try prune()
            return (final, manifest)
        } catch {
            try? fileManager.removeItem(atPath: temporary)
            throw error
        }
    }

    private func export(into folder: String, date: String) throws -> Manifest {
        for sub in ["", "/rosters", "/data", "/calendars"] { try create(folder + sub) }
        try connection.execute("begin isolation level repeatable read read only")
        defer { try? connection.execute("commit") }
        let exporter = try Exporter(connection: connection)
        var files: [ExportedFile] = []
        func add(_ file: ExportedFile) {
            var relative = file
            relative.file = String(file.file.dropFirst(folder.count + 1))
            files.append(relative)
        }
        add(try exporter.exportRosterCSV(.everything, to: .regularFile(folder + "/rosters/all.csv")))
        for code in try exporter.groupCodes() {
            add(try exporter.exportRosterCSV(.group(code), to: .regularFile(folder + "/rosters/\(code).csv")))
        }
        for kind in Kind.allCases {
            add(try exporter.exportKind(kind, to: .regularFile(folder + "/data/\(kind.fileName)")))
        }
        add(try exporter.exportCalendar(.everything, to: .regularFile(folder + "/calendars/all.ics"), today: self.date))
        for campus in try connection.query("select code from campuses order by code").rows.map({ try $0.decode(String.self, 0) }) {
            add(try exporter.exportCalendar(.campus(campus), to: .regularFile(folder + "/calendars/\(campus).ics"), today: self.date))
        }
        let manifest = Manifest(date: date, crubatchVersion: CruBatchVersion.current, files: files)
        let file = try AtomicFile(path: folder + "/manifest.json")
        try file.write(Array(try JSONOutput.encoder().encode(manifest)) + [0x0A])
        try file.commit()
        return manifest
    }

    /// Puts the complete new folder in place; a same-day folder from an earlier run is moved aside
    /// first and removed after (restored if the rename fails).
    private func replace(_ final: String, with temporary: String) throws {
        let previous = FileManager.default.fileExists(atPath: final) ? final + ".\(getpid()).previous" : nil
        if let previous, rename(final, previous) != 0 {
            throw OutputError(path: final, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary, final) == 0 else {
            let error = OutputError(path: final, reason: String(cString: strerror(errno)))
            if let previous { rename(previous, final) }
            throw error
        }
        if let previous { try FileManager.default.removeItem(atPath: previous) }
    }

    private func pointLatest(at name: String) throws {
        let link = outputDirectory + "/latest"
        let temporary = outputDirectory + "/.latest.\(getpid())"
        unlink(temporary)
        guard symlink(name, temporary) == 0, rename(temporary, link) == 0 else {
            throw OutputError(path: link, reason: String(cString: strerror(errno)))
        }
    }

    /// Keeps the newest `keep` dated folders.
    private func prune() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: outputDirectory)
            .filter { $0.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil }
            .sorted(by: >)
        for old in names.dropFirst(keep) {
            try FileManager.default.removeItem(atPath: outputDirectory + "/" + old)
        }
    }

    private func create(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw OutputError(path: path, reason: "exists and is not a folder")
        }
        guard mkdir(path, 0o700) == 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
    }
}
