import CSVStream
import Foundation
import PostgresClient

/// Runs `import` and `validate`: every file of one load in one transaction, under an advisory lock
/// per kind, recorded in `import_runs` (except `validate`, which never writes).
public struct Importer {
    let connection: PostgresConnection
    let options: ImportOptions
    var progress: ((ImportProgress) -> Void)?
    /// Runs inside the load's transaction once every file is loaded, with each kind's rejected
    /// lines, unless a file was unreadable (a migration records its documents' keys here).
    var finishing: ((_ rejectedLines: [Kind: Set<Int>]) throws -> Void)?
    /// Rows refused before the load began (a migration refuses documents it cannot make rows of):
    /// rows naming them are told so.
    var refusedBefore = RefusedRows()
    /// Problems found before the load began, which count as its own: errors make an `--on-error
    /// abort` load write nothing, as a rejected row does.
    var problemsBefore: [Diagnostic] = []

    public init(connection: PostgresConnection, options: ImportOptions, progress: ((ImportProgress) -> Void)? = nil) {
        self.connection = connection
        self.options = options
        self.progress = progress
    }

    /// One file to load: a path, or a URL (see `RemoteLocation`).
    public struct Source: Sendable {
        public let kind: Kind
        /// The path or URL as given.
        public let path: String
        /// Where the rows are read: `path`, or the download of a URL.
        var readPath: String
        /// Options of this source alone (a sources file's columns), over the load's.
        public var sheet: String?
        public var sync: SyncScope?
        public var columnMap: [String: String]?
        /// Whose events an iCalendar source holds.
        public var eventOwner: EventOwner?
        /// What diagnostics, the report and the run log call the file when the caller names it (a
        /// migration's generated file is named after its dump); nil: `displayName` below.
        private let givenName: String?

        public init(kind: Kind, path: String, displayName: String? = nil) {
            self.kind = kind
            self.path = path
            readPath = path
            givenName = displayName
        }

        /// The URL `path` names, or nil for a file.
        var remote: RemoteLocation? { RemoteLocation(path) }

        /// How diagnostics and the run log name it: the name it was given, else the path, or the URL
        /// with its password masked.
        public var displayName: String { givenName ?? remote?.displayName ?? path }
    }

    /// The files of one load, and what its folder held that is not loaded.
    public struct SourceList: Sendable {
        /// In dependency order.
        public var sources: [Source]
        /// A `skipped-file` warning for each file of the folder that is not loaded, saying why.
        public var skipped: [Diagnostic]
    }

    /// The files of a load: those of `directory` named after a kind (`campuses.csv`, `Groups.CSV`,
    /// `groups.xlsx`), and `files` given as KIND=PATH (`import --file`; a relative path is inside
    /// `directory` when there is one). Every other entry of the folder is listed in `skipped`, with
    /// why. A kind given twice is a usage error.
    public static func sources(directory: String?, files: [Source]) throws -> SourceList {
        var sources: [Source] = []
        var skipped: [Diagnostic] = []
        let base = directory.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        let given = files.map { file in
            file.path.hasPrefix("/") || file.remote != nil ? file : Source(kind: file.kind, path: base + file.path)
        }
        if let directory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CruBatchError.fileNotFound(directory)
            }
            let givenPaths = Set(given.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path })
            var found: [(kind: Kind, name: String)] = []
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
                let path = base + name
                if givenPaths.contains(URL(fileURLWithPath: path).standardizedFileURL.path) { continue }
                if let kind = Kind(fileName: name) {
                    found.append((kind, name))
                } else {
                    skipped.append(skippedWarning(name: name, path: path))
                }
            }
            for kind in Kind.allCases {
                let names = found.filter { $0.kind == kind }.map(\.name)
                if names.count > 1 {
                    throw CruBatchError.usage("\(directory) holds \(names.joined(separator: " and ")): keep one file per kind")
                }
            }
            sources = found.map { Source(kind: $0.kind, path: base + $0.name) }
        }
        for file in given {
            if let other = sources.first(where: { $0.kind == file.kind }) {
                throw CruBatchError.usage("\(file.kind.rawValue) is given twice (\(other.displayName) and \(file.displayName)); load one of them")
            }
            sources.append(file)
        }
        guard !sources.isEmpty else {
            throw CruBatchError.usage("\(directory ?? "the folder") holds none of: \(Kind.allCases.map(\.fileName).joined(separator: ", "))"
                                      + " (or .xlsx); name a file with --file KIND=FILE")
        }
        sources.sort { Kind.allCases.firstIndex(of: $0.kind)! < Kind.allCases.firstIndex(of: $1.kind)! }
        return SourceList(sources: sources, skipped: skipped)
    }

    /// Why `--dir` does not load the entry `name`, and how to load it if it is data.
    private static func skippedWarning(name: String, path: String) -> Diagnostic {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let reason: String, hint: String?
        if isDirectory.boolValue {
            (reason, hint) = ("it is a folder; --dir does not look inside folders", nil)
        } else if name.hasPrefix(".") {
            (reason, hint) = ("it is a hidden file", nil)
        } else if Kind(fileName: "campuses." + (name as NSString).pathExtension) == nil {
            // Asked of Kind, which alone knows the file types import reads.
            (reason, hint) = ("it is neither a .csv file nor an .xlsx workbook", nil)
        } else {
            let words = Set(NameWords.words(of: name))
            let named = Kind.allCases.filter { words.contains($0.rawValue) || words.contains($0.noun) }
            reason = "its name is none of \(Kind.allCases.map(\.fileName).joined(separator: ", "))"
            hint = named.count == 1
                ? "if it holds \(named[0].rawValue), load it with --file \(named[0].rawValue)='\(name)'"
                : "load it with --file KIND='\(name)', or rename it after its kind"
        }
        return Diagnostic(file: path, line: 1, code: .skippedFile, message: "not loaded: \(reason)", hint: hint)
    }


    /// Loads `sources` in one transaction; `skipped` (from `sources(directory:files:)`) are
    /// reported with the rest.
    public func run(_ given: [Source], skipped: [Diagnostic] = []) throws -> ImportReport {
        for source in given where source.remote == nil && !FileManager.default.fileExists(atPath: source.path) {
            throw CruBatchError.fileNotFound(source.path)
        }
        try Migrator(connection: connection).requireCurrent()
        let fetch = SourceFetch(connection: connection, options: options.fetch, sheet: options.sheet,
                                remembers: !options.validateOnly)
        let fetched = try fetch.fetch(given, syncing: options.sync != nil)
        defer { fetched.removeDownloads() }
        let sources = fetched.sources
        var report = ImportReport()
        report.unchanged = fetched.unchanged
        report.diagnostics = skipped
        report.dryRun = options.dryRun
        report.validateOnly = options.validateOnly
        report.diffLimit = options.diffLimit
        guard !sources.isEmpty else { return report }
        try connection.execute("set time zone 'UTC'")
        let syncs = try sources.map { source in
            try options.sync.map { try SyncStep(spec: .of(source.kind), scope: $0, limit: options.maxArchive, connection: connection) }
        }
        let owner = try calendarOwner(of: sources)
        // Validation writes nothing, so it records no run and takes no lock: it can run beside an import.
        // A file whose walk-ins become students writes students too: no students import or place beside it.
        let kinds = Kind.allCases.filter { kind in
            sources.contains { $0.kind == kind || (kind == .students && KindSpec.of($0.kind).walkIns != nil) }
        }
        let run = WriterRun(
            connection: connection, entries: options.validateOnly ? [] : sources.map { (.import($0.kind), $0.displayName) },
            dryRun: options.dryRun, locks: options.validateOnly ? .none : .imports(kinds, wait: options.waitForLock),
            stages: true)

        var results: [KindLoadResult] = []
        var refused = refusedBefore
        // The sources loaded, each beside its result, by index into `sources`; and the URLs found
        // unchanged at their turn, when nothing loaded before them touched what they depend on.
        var loaded: [Int] = []
        var unchangedAtTurn: [Int] = []
        var workEnded = ContinuousClock.now
        try run.perform { scope in
            try options.messages.apply(on: connection)
            // The checks and the merge sort and hash whole files: give them room for a big one in
            // memory instead of spilling to temporary files (the server default is 4 MB).
            try connection.execute("set local work_mem = '128MB'")
            // Nor JIT compilation: the planner's guesses over the merge's temp tables (no statistics)
            // call for inlining and optimising, which took 0.3 s to compile a re-import's 0.4 s diff of
            // 100,000 students' lists, and a first load of a million students gained nothing from it.
            try connection.execute("set local jit = off")
            var budget = (options.maxErrors ?? Int.max) - problemsBefore.count { $0.severity == .error }
            for (index, source) in sources.enumerated() {
                if !scope.ids.isEmpty { try scope.record(index) }
                if try fetch.isUnchanged(fetched.candidates[index]) {
                    unchangedAtTurn.append(index)
                    continue
                }
                // A sources file's scope may name a campus or ministry an earlier source of the load adds.
                let sync = try syncs[index] ?? source.sync.map {
                    try SyncStep(spec: .of(source.kind), scope: $0, limit: options.maxArchive, connection: connection)
                }
                // Resolved here too, so the owner may be a ministry an earlier source adds.
                let sourceOwner = try source.eventOwner.map { try CalendarOwner.resolve($0, connection: connection) } ?? owner
                let loader = KindLoader(spec: .of(source.kind), connection: connection, options: options.for(source),
                                        sync: sync, eventOwner: sourceOwner, errorBudget: budget, refused: refused,
                                        progress: progress)
                let result = try loader.load(path: source.readPath, displayName: source.displayName)
                for (key, note) in result.refusedKeys { refused.add(table: KindSpec.of(source.kind).table, key: key, note: note) }
                budget -= result.diagnostics.count { $0.severity == .error }
                results.append(result)
                loaded.append(index)
                // The tables as this source leaves them, before a later source of the load changes them.
                if let record = fetched.records[index], !scope.ids.isEmpty, !options.dryRun {
                    try fetch.record(record, runID: scope.ids[index])
                }
                if result.fatal || result.stoppedEarly || budget <= 0 { break }
            }
            let loadedSources = loaded.map { sources[$0] }
            if let unused = unusedMapping(results, of: loadedSources), let first = loadedSources.first {
                results[0].diagnostics.append(Diagnostic(
                    file: first.displayName, line: 1, code: .missingColumn,
                    message: "--map '\(unused.title)=\(unused.column)': no file has a column \"\(unused.title)\"",
                    hint: "check the title as the header row writes it"))
                results[0].fatal = true
            }
            if !results.contains(where: \.fatal) { report.effects = try LoadEffects.read(on: connection) }
            report.outcome = Self.outcome(of: results, before: problemsBefore, onError: options.onError)
            if let finishing, results.count + unchangedAtTurn.count == sources.count, !results.contains(where: \.fatal) {
                try finishing(Dictionary(zip(loadedSources.map(\.kind), results.map(\.rejectedLines))) { $0.union($1) })
            }
            report.stoppedEarly = results.contains { $0.stoppedEarly } || budget <= 0
            scope.commits = !options.dryRun && !options.validateOnly
                && (report.outcome == .loaded || report.outcome == .partiallyLoaded)
            workEnded = ContinuousClock.now
        } then: { runIDs in
            options.timings?.add(options.dryRun || options.validateOnly ? "rollback" : "commit", ContinuousClock.now - workEnded)
            report.unchanged += try fetch.unchanged(unchangedAtTurn.compactMap { fetched.candidates[$0] },
                                                    droppingRuns: runIDs.isEmpty ? [] : unchangedAtTurn.map { runIDs[$0] })
            let reached = Set(loaded + unchangedAtTurn)
            try options.timings.measure("runs recorded, rejects and reports written") {
                try finish(results, of: loaded.map { sources[$0] }, runIDs: runIDs.isEmpty ? [] : loaded.map { runIDs[$0] },
                           unreached: runIDs.isEmpty ? [] : sources.indices.filter { !reached.contains($0) }.map { runIDs[$0] },
                           log: run.log, into: &report)
            }
        }
        return report
    }

    /// Once the load's transaction ended: each file's counts into its run and the report, the runs of
    /// files never reached (`unreached`) marked failed, then the rejects and the HTML report.
    private func finish(_ results: [KindLoadResult], of sources: [Source], runIDs: [Int], unreached: [Int], log: RunLog,
                        into report: inout ImportReport) throws {
        for (index, result) in results.enumerated() {
            var counts = result.counts
            counts.runID = runIDs.isEmpty ? nil : runIDs[index]
            report.files.append(counts)
            report.diagnostics += result.diagnostics
        }
        // Once every file is in the report, which then says whether the load wrote.
        for (index, result) in results.enumerated() where !runIDs.isEmpty {
            try log.finish(runIDs[index], status: Self.runStatus(report.outcome), counts: RunLog.Counts(result.counts),
                           sha256: result.sha256, wrote: report.wrote)
        }
        for id in unreached {
            try log.finish(id, status: .failed, error: "not loaded: an earlier file failed")
        }
        // A page cannot show every bad row of a large file: the rest go to a rejects file beside it.
        let overflow = options.reportPath.flatMap { page in
            results.contains { $0.rejectedLines.count > HTMLReport.rowsShown } && sources.count == 1
                ? HTMLReport.overflowRejectsPath(beside: page) : nil
        }
        if let rejectsPath = options.rejectsPath ?? overflow {
            report.rejects = try RejectsWriter(options: options)
                .write(results: results, sources: sources, to: rejectsPath)
        }
        if let reportPath = options.reportPath {
            try HTMLReport(report, results: results, sources: sources, options: options,
                           rejectsFile: report.rejects?.path).write(to: reportPath)
        }
    }

    /// An `--map` entry that fed no file of a load that read every file's header.
    private func unusedMapping(_ results: [KindLoadResult], of sources: [Source]) -> (title: String, column: String)? {
        guard results.count == sources.count, !results.contains(where: \.fatal) else { return nil }
        let used = results.reduce(into: Set<String>()) { $0.formUnion($1.mappedColumns) }
        return options.columnMap.sorted { $0.key < $1.key }.first { !used.contains($0.key) }.map { ($0.value, $0.key) }
    }

    static func outcome(of results: [KindLoadResult], before: [Diagnostic] = [],
                        onError: ImportOptions.OnError) -> ImportReport.Outcome {
        if results.contains(where: \.fatal) { return .unreadable }
        let errors = (results.map(\.diagnostics) + [before]).contains { $0.contains { $0.severity == .error } }
        if errors { return onError == .skip ? .partiallyLoaded : .rejected }
        return results.contains { $0.counts.refusal != nil } ? .refused : .loaded
    }

    private static func runStatus(_ outcome: ImportReport.Outcome) -> RunStatus {
        switch outcome {
        case .loaded, .partiallyLoaded: .succeeded
        case .rejected, .refused: .rejected
        case .unreadable: .failed
        }
    }

    /// Checks what iCalendar files can be given with (events only, no rejects file) and looks up
    /// whose events they are; nil when no owner is given.
    private func calendarOwner(of sources: [Source]) throws -> CalendarOwner? {
        let calendars = sources.filter { FileFormat.ofInput(path: $0.readPath) == .calendar }
        if let misfiled = calendars.first(where: { $0.kind != .events }) {
            throw CruBatchError.usage("\(misfiled.displayName) is an iCalendar file, which holds events: import it with `crubatch import events \(misfiled.displayName)`")
        }
        if let calendar = calendars.first, options.rejectsPath != nil {
            throw CruBatchError.usage("--rejects writes the rejected rows of a CSV file; \(calendar.displayName) is an iCalendar file, whose events are fixed in their calendar")
        }
        if options.eventOwner != nil && calendars.isEmpty {
            throw CruBatchError.usage("--campus and --ministry say whose events an iCalendar file holds; a CSV file names them in its ministries column")
        }
        return try options.eventOwner.map { try CalendarOwner.resolve($0, connection: connection) }
    }
}
