import CSVStream
import Foundation
import PostgresClient

/// Runs `import` and `validate`: every file of one load in one transaction, under an advisory lock
/// per kind, recorded in `import_runs` (except `validate`, which never writes).
public struct Importer {
    let connection: PostgresConnection
    let options: ImportOptions
    var progress: ((ImportProgress) -> Void)?

    public init(connection: PostgresConnection, options: ImportOptions, progress: ((ImportProgress) -> Void)? = nil) {
        self.connection = connection
        self.options = options
        self.progress = progress
    }

    /// One file to load.
    public struct Source: Sendable {
        public let kind: Kind
        public let path: String

        public init(kind: Kind, path: String) {
            self.kind = kind
            self.path = path
        }
    }

    /// The files of a folder that `import --dir` recognises, in dependency order.
    public static func sources(inDirectory directory: String) throws -> [Source] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CruBatchError.fileNotFound(directory)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let found = names.sorted().compactMap { name in Kind(fileName: name).map { ($0, name) } }
        guard !found.isEmpty else {
            throw CruBatchError.usage("\(directory) holds none of: \(Kind.allCases.map(\.fileName).joined(separator: ", ")) (or .xlsx)")
        }
        for kind in Kind.allCases {
            let files = found.filter { $0.0 == kind }.map(\.1)
            if files.count > 1 {
                throw CruBatchError.usage("\(directory) holds \(files.joined(separator: " and ")): keep one file per kind")
            }
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return found.sorted { Kind.allCases.firstIndex(of: $0.0)! < Kind.allCases.firstIndex(of: $1.0)! }
            .map { Source(kind: $0.0, path: base + $0.1) }
    }

    static func lockKey(_ kind: Kind) -> Int64 { 0x6372_7562_1000 + Int64(Kind.allCases.firstIndex(of: kind)!) }

    /// While its process lives, a run holds the advisory lock (`runLockSpace`, its id), which
    /// pg_locks shows as classid and objid; a run still `running` without it was killed.
    static let runLockSpace = 0x6372_7563

    public func run(_ sources: [Source]) throws -> ImportReport {
        for source in sources where !FileManager.default.fileExists(atPath: source.path) {
            throw CruBatchError.fileNotFound(source.path)
        }
        try Migrator(connection: connection).requireCurrent()
        try connection.execute("set time zone 'UTC'")
        // Validation writes nothing, so it takes no lock and can run beside an import. The locks are
        // taken in Kind order, the same in every process, so two imports waiting for locks cannot deadlock.
        let kinds = options.validateOnly ? [] : Kind.allCases.filter { kind in sources.contains { $0.kind == kind } }
        try lock(kinds)
        defer { for kind in kinds { try? connection.advisoryUnlock(Self.lockKey(kind)) } }

        var report = ImportReport()
        report.dryRun = options.dryRun
        report.validateOnly = options.validateOnly
        let runIDs = options.validateOnly ? [] : try sources.map(startRun)
        var results: [KindLoadResult] = []
        do {
            try connection.execute("begin")
            var budget = options.maxErrors ?? Int.max
            for source in sources {
                let loader = KindLoader(spec: .of(source.kind), connection: connection, options: options,
                                        errorBudget: budget, progress: progress)
                let result = try loader.load(path: source.path, displayName: source.path)
                budget -= result.diagnostics.filter { $0.severity == .error }.count
                results.append(result)
                if result.fatal || result.stoppedEarly || budget <= 0 { break }
            }
            report.outcome = Self.outcome(of: results, onError: options.onError)
            report.stoppedEarly = results.contains { $0.stoppedEarly } || budget <= 0
            let keep = !options.dryRun && !options.validateOnly
                && (report.outcome == .loaded || report.outcome == .partiallyLoaded)
            try connection.execute(keep ? "commit" : "rollback")
        } catch {
            try? connection.execute("rollback")
            for id in runIDs { try? finishRun(id, result: nil, status: "failed", error: String(describing: error)) }
            throw error
        }
        for (index, result) in results.enumerated() {
            var counts = result.counts
            if !runIDs.isEmpty {
                counts.runID = runIDs[index]
                try finishRun(runIDs[index], result: result, status: Self.runStatus(report.outcome), error: nil,
                              wrote: report.wrote)
            }
            report.files.append(counts)
            report.diagnostics += result.diagnostics
        }
        for id in runIDs.dropFirst(results.count) {
            try finishRun(id, result: nil, status: "failed", error: "not loaded: an earlier file failed")
        }
        if let rejectsPath = options.rejectsPath {
            try RejectsWriter(options: options).write(results: results, sources: sources, to: rejectsPath)
        }
        return report
    }

    static func outcome(of results: [KindLoadResult], onError: ImportOptions.OnError) -> ImportReport.Outcome {
        if results.contains(where: \.fatal) { return .unreadable }
        let errors = results.contains { $0.diagnostics.contains { $0.severity == .error } }
        if !errors { return .loaded }
        return onError == .skip ? .partiallyLoaded : .rejected
    }

    private static func runStatus(_ outcome: ImportReport.Outcome) -> String {
        switch outcome {
        case .loaded, .partiallyLoaded: "succeeded"
        case .rejected: "rejected"
        case .unreadable: "failed"
        }
    }

    private func lock(_ kinds: [Kind]) throws {
        for kind in kinds {
            if options.waitForLock {
                try connection.advisoryLock(Self.lockKey(kind))
            } else if try !connection.tryAdvisoryLock(Self.lockKey(kind)) {
                throw CruBatchError.lockHeld("another import of \(kind.rawValue)")
            }
        }
    }

    /// Records a run and takes its lock in one statement, so no one sees the run without its lock.
    private func startRun(_ source: Source) throws -> Int {
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? String(getuid())
        return try connection.query("""
            with run as (
                insert into import_runs (kind, file_name, dry_run, os_user)
                values (\(source.kind.rawValue), \(source.path), \(options.dryRun), \(user)) returning id)
            select id, pg_advisory_lock(\(Self.runLockSpace), id::int) from run
            """).scalar(Int.self)
    }

    /// Records how a run ended, then releases its lock: once the outcome is visible, so the run
    /// never looks killed. Inserted and updated count only what was written: a dry or rejected run
    /// records 0, whatever it would have done.
    private func finishRun(_ id: Int, result: KindLoadResult?, status: String, error: String?, wrote: Bool = false) throws {
        let counts = result?.counts
        let inserted = wrote ? counts?.inserted ?? 0 : 0, updated = wrote ? counts?.updated ?? 0 : 0
        try connection.query("""
            update import_runs set status = \(status), sha256 = \(result?.sha256), rows_read = \(counts?.read ?? 0),
                rows_inserted = \(inserted), rows_updated = \(updated),
                rows_unchanged = \(counts?.unchanged ?? 0), rows_rejected = \(counts?.rejected ?? 0), error = \(error),
                finished_at = now()
            where id = \(id)
            """)
        try connection.query("select pg_advisory_unlock(\(Self.runLockSpace), \(id))")
    }
}
