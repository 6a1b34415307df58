import FileOutput
import CSVStream
import Foundation
import PostgresClient

/// The nightly job: every roster (CSV for machines, or workbooks), every kind, the calendars and the
/// cars of each upcoming event that shares rides into `DIR/YYYY-MM-DD/` with a `manifest.json`,
/// built in a temporary folder and renamed into place in one step, so a failure leaves no dated
/// folder and the previous one untouched. `DIR/latest` points to the newest. A file that bad data
/// keeps from being written is skipped and listed in the manifest's `errors`, and so is a row that a
/// written file left out (an event a calendar cannot hold).
public struct NightlyExport {
    /// The manifest: what each file holds and its checksum, and which files were skipped and why.
    public struct Manifest: Codable, Sendable {
        public var date: String
        public var crubatchVersion: String
        public var files: [ExportedFile]
        public var errors: [SkippedFile]

        /// Writes the manifest to `path` as one JSON document, whole or not at all.
        func write(to path: String) throws {
            let file = try AtomicFile(path: path)
            try file.write(Array(try JSONOutput.encoder().encode(self)) + [0x0A])
            try file.commit()
        }

        /// The manifest nightly wrote to `path`.
        static func read(from path: String) throws -> Manifest {
            try JSONOutput.decoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// A file the data kept out of the dated folder, or a row a written file left out; everything
    /// else was written.
    public struct SkippedFile: Codable, Sendable, Equatable {
        /// The file's path in the dated folder; nil when the data could not even name a file.
        public var file: String?
        /// The row left out of `file` (`event "aia-beach-day"`); nil when the whole file was skipped.
        public var row: String?
        public var error: String
    }

    /// The file format of the rosters: flat CSV for machines (the default) or workbooks for people.
    public enum RosterFormat: String, Sendable, CaseIterable {
        case csv, xlsx
    }

    /// Where the run records its folder (the primary).
    let connection: PostgresConnection
    /// Where it reads the data: a standby given with `--read-only-url`, else `connection`.
    let reader: PostgresConnection
    let outputDirectory: String
    let keep: Int
    let date: Date
    let rosters: RosterFormat

    /// Leftovers of an interrupted run (its `.DATE.PID.partial` folder, its `.latest.PID` link) are
    /// removed once they are this old, so that a run still under way keeps its own.
    static let leftoverAge: TimeInterval = 3600

    public init(connection: PostgresConnection, readingFrom reader: PostgresConnection? = nil, outputDirectory: String,
                keep: Int, date: Date, rosters: RosterFormat = .csv) {
        self.connection = connection
        self.reader = reader ?? connection
        self.outputDirectory = outputDirectory
        self.keep = keep
        self.date = date
        self.rosters = rosters
    }

    /// The dated folder's name for a day: `YYYY-MM-DD`.
    public static func folderName(for date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// The only way a file name is made from a code (`cp-small-tue` gives `cp-small-tue.csv`). A code
    /// that breaks `CodeRule` (a `/`, `..`, more than 63 characters: written by SQL past every check)
    /// names no file.
    static func fileName(for code: String, of owner: String, extension suffix: String) throws -> String {
        guard CodeRule.accepts(code) else {
            // Enough of the code to recognise it, escaped: SQL may have written anything into it.
            let shown = String(reflecting: String(code.prefix(CodeRule.maximumLength + 1)))
            throw UnexportableData("\(owner) code \(shown)\(code.count > CodeRule.maximumLength + 1 ? "…" : "") "
                + "(\(code.count) characters) cannot name a file: \(CodeRule.explanation)")
        }
        return code + "." + suffix
    }

    /// `folder/relative`, refused unless each part of `relative` is a plain name (not empty, not
    /// hidden, not `..`), so that the file stays inside `folder`.
    static func path(_ relative: String, inside folder: String) throws -> String {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else {
            throw UnexportableData("\(String(reflecting: relative)) would not stay inside the export folder")
        }
        return folder + "/" + relative
    }

    /// Runs the export; returns the dated folder and its manifest.
    public func run() throws -> (folder: String, manifest: Manifest) {
        let fileManager = FileManager.default
        try create(outputDirectory)
        try requireLatestIsALink()
        removeLeftovers()
        let name = Self.folderName(for: date)
        let final = outputDirectory + "/" + name
        let temporary = outputDirectory + "/.\(name).\(getpid()).partial"
        try? fileManager.removeItem(atPath: temporary)
        do {
            let manifest = try export(into: temporary, date: name)
            // Recorded before the folder appears, so no published folder is ever unknown to forget.
            try remember()
            try replace(final, with: temporary)
            let newest = try pointLatestAtNewest(orAt: name)
            try prune(sparing: [name, newest])
            return (final, manifest)
        } catch {
            try? fileManager.removeItem(atPath: temporary)
            throw error
        }
    }

    private func export(into folder: String, date: String) throws -> Manifest {
        for sub in ["", "/rosters", "/data", "/calendars", "/rides"] { try create(folder + sub) }
        try reader.execute("begin isolation level repeatable read read only")
        defer { try? reader.execute("commit") }
        let exporter = try Exporter(connection: reader)
        var files: [ExportedFile] = []
        var errors: [SkippedFile] = []
        /// Writes `subfolder/name`, or records why the data cannot give that file and goes on.
        func add(_ subfolder: String, _ name: @autoclosure () throws -> String,
                 _ write: (OutputTarget) throws -> ExportedFile) throws {
            var relative: String?
            do {
                let path = subfolder + "/" + (try name())
                relative = path
                var file = try write(.regularFile(try Self.path(path, inside: folder)))
                file.file = path
                files.append(file)
                errors += (file.leftOut ?? []).map { SkippedFile(file: path, row: $0.label, error: $0.reason) }
            } catch let error as UnexportableData {
                errors.append(SkippedFile(file: relative, error: error.description))
            }
        }
        func roster(_ scope: ExportScope, to target: OutputTarget) throws -> ExportedFile {
            switch rosters {
            case .csv: try exporter.exportRosterCSV(scope, to: target)
            case .xlsx: try exporter.exportRosterWorkbook(scope, to: target)
            }
        }
        try add("rosters", "all.\(rosters.rawValue)") { try roster(.everything, to: $0) }
        for code in try exporter.groupCodes() {
            try add("rosters", Self.fileName(for: code, of: "group", extension: rosters.rawValue)) {
                try roster(.group(code), to: $0)
            }
        }
        for kind in Kind.allCases {
            try add("data", kind.fileName) { try exporter.exportKind(kind, to: $0) }
        }
        try add("calendars", "all.ics") { try exporter.exportCalendar(.everything, to: $0, today: self.date) }
        for campus in try reader.query("select code from campuses where archived_at is null order by code").rows.map({ try $0.decode(String.self, 0) }) {
            try add("calendars", Self.fileName(for: campus, of: "campus", extension: "ics")) {
                try exporter.exportCalendar(.campus(campus), to: $0, today: self.date)
            }
        }
        for event in try exporter.upcomingRideShareEvents(on: self.date) {
            try add("rides", Self.fileName(for: event, of: "event", extension: "csv")) {
                try exporter.exportRidesCSV(event: event, to: $0)
            }
        }
        let manifest = Manifest(date: date, crubatchVersion: CruBatchVersion.current, files: files, errors: errors)
        try manifest.write(to: folder + "/manifest.json")
        return manifest
    }

    private var latestPath: String { outputDirectory + "/latest" }

    /// Records the output folder (absolute) in `nightly_folders`, so `forget` finds the folders that
    /// hold copies of a person without being told where they are.
    private func remember() throws {
        guard let resolved = realpath(outputDirectory, nil) else { throw OutputError.fromErrno(outputDirectory) }
        defer { free(resolved) }
        try connection.query("""
            insert into nightly_folders (out_dir) values (\(String(cString: resolved)))
            on conflict (out_dir) do update set last_written_at = now()
            """)
    }

    /// The folder the last nightly run wrote into, if nightly has run against this database.
    public static func rememberedDirectory(connection: PostgresConnection) throws -> String? {
        try connection.query("select out_dir from nightly_folders order by last_written_at desc limit 1").rows.first?
            .decode(String.self, 0)
    }

    /// `latest` is replaced by a new symbolic link each night; anything else by that name belongs to
    /// someone else, so the run stops (exit 73) before it writes or moves anything.
    private func requireLatestIsALink() throws {
        var info = stat()
        guard lstat(latestPath, &info) == 0 else {
            if errno == ENOENT { return }
            throw OutputError.fromErrno(latestPath)
        }
        guard info.st_mode & S_IFMT == S_IFLNK else {
            throw OutputError(path: latestPath, reason: "exists and is not a symbolic link; nightly replaces only the link it makes, so move it away")
        }
    }

    /// Removes the partial folders and `latest` links that killed runs left, once they are older
    /// than `leftoverAge`. Best effort: what cannot be removed now is tried again the next night.
    private func removeLeftovers() {
        let fileManager = FileManager.default
        guard let names = try? fileManager.contentsOfDirectory(atPath: outputDirectory) else { return }
        let cutoff = Date().timeIntervalSince1970 - Self.leftoverAge
        for name in names where (name.hasPrefix(".") && name.hasSuffix(".partial")) || name.hasPrefix(".latest.") {
            let path = outputDirectory + "/" + name
            var info = stat()
            if lstat(path, &info) == 0, Double(info.st_mtim.tv_sec) < cutoff {
                try? fileManager.removeItem(atPath: path)
            }
        }
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

    /// Points `latest` at the newest dated folder, which is not the one written when an older day
    /// was redone; returns that folder's name.
    private func pointLatestAtNewest(orAt written: String) throws -> String {
        let newest = try datedFolders().first ?? written
        let temporary = outputDirectory + "/.latest.\(getpid())"
        unlink(temporary)
        guard symlink(newest, temporary) == 0, rename(temporary, latestPath) == 0 else {
            throw OutputError(path: latestPath, reason: String(cString: strerror(errno)))
        }
        return newest
    }

    /// Keeps the newest `keep` dated folders and every one in `spared` (the folder just written and
    /// the one `latest` points to).
    private func prune(sparing spared: Set<String>) throws {
        for old in try datedFolders().dropFirst(keep) where !spared.contains(old) {
            try FileManager.default.removeItem(atPath: outputDirectory + "/" + old)
        }
    }

    /// The dated folders' names, newest first.
    private func datedFolders() throws -> [String] { try Self.datedFolders(in: outputDirectory) }

    /// The names in `directory` that a dated folder has (`YYYY-MM-DD`), newest first.
    static func datedFolders(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil }
            .sorted(by: >)
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
