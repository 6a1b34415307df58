import FileOutput
import Foundation
import HTTPFetch
import PostgresClient

/// How `import` fetches a URL (`--fetch-timeout`, `--max-bytes`, `--cacert`, `--force`).
public struct FetchOptions: Sendable {
    /// Seconds for a whole transfer, redirects included.
    public var timeout: Double = 120
    /// The largest file accepted, in bytes.
    public var maxBytes: Int64 = 200 * 1_000_000
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caBundle: String?
    /// Load a source even when it is unchanged since its last import.
    public var force = false
    /// Follow a redirect from a public address to a private, loopback or link-local one.
    public var allowPrivateRedirects = false

    public init() {}
}

/// A URL whose content is what its last import loaded: the load skips it and writes nothing for it.
public struct UnchangedSource: Sendable, Equatable, Encodable {
    public let kind: Kind
    public let url: String
    /// The run that imported the content last.
    public let runID: Int

    /// `students https://…: unchanged since run 12, nothing written`.
    public var sentence: String { "\(kind.rawValue) \(url): unchanged since run \(runID), nothing written" }
}

/// The URLs of one load, fetched before it begins: each is downloaded to a temporary file (or
/// found unchanged since its last import, with a conditional request or by its SHA-256), and what
/// its server said of the content is recorded in `sources` in the load's own transaction.
struct SourceFetch {
    let connection: PostgresConnection
    let options: FetchOptions
    /// The sheet a Google Sheets link is read from when its source names none (`--sheet`).
    let sheet: String?
    /// `validate` fetches every URL afresh and records nothing.
    let remembers: Bool

    /// The sources of a load (each URL's `readPath` its download) unless every URL is unchanged,
    /// and what to record or check of each URL.
    struct Result {
        /// Every source, in the given order; empty when all are unchanged.
        var sources: [Importer.Source] = []
        /// All of them, when every source is a URL unchanged since its last load.
        var unchanged: [UnchangedSource] = []
        /// What to record for each URL of `sources`, by its index there.
        var records: [Int: Record] = [:]
        /// The URLs of `sources` whose content is unchanged, by index: each is skipped at its turn if
        /// its tables are still as its last load left them.
        var candidates: [Int: Candidate] = [:]
        var downloads: [FetchedFile] = []

        /// Deletes the temporary files.
        func removeDownloads() {
            for download in downloads { download.remove() }
        }
    }

    /// What the `sources` table keeps of one URL.
    struct Record {
        let kind: Kind
        let url: String
        let etag: String?
        let lastModified: String?
        let sha256: String
    }

    /// A URL whose content its last complete load read.
    struct Candidate {
        let kind: Kind
        let url: String
        /// That load's run.
        let runID: Int
        /// The state its kind's tables were left in (`KindTablesState`).
        let tablesState: String

        var unchanged: UnchangedSource { UnchangedSource(kind: kind, url: url, runID: runID) }
    }

    /// Fetches every URL of `sources`; files pass through as they are. A URL whose content its
    /// last load read, that load complete (no row rejected, not undone) and without a sync (which
    /// would archive what other files added since), is a candidate to skip: skipped when its
    /// kind's tables are still as that load left them (`KindTablesState`), so that loading it
    /// again could change nothing. When every source is such a URL, nothing loads; otherwise each
    /// candidate is checked at its turn in the load (`isUnchanged`), after the sources before it.
    /// `syncing`: the load's own `--sync`. Throws `FetchError` for a server that fails,
    /// `CruBatchError.unreadable` for a web page where a table was expected.
    func fetch(_ sources: [Importer.Source], syncing: Bool) throws -> Result {
        var result = Result()
        do {
            // A URL answered 304 has no file yet: fetched in full below unless nothing loads.
            var notModified: [(index: Int, remote: RemoteLocation)] = []
            for source in sources {
                let index = result.sources.count
                result.sources.append(source)
                guard let remote = RemoteLocation(source.path, sheet: source.sheet ?? sheet) else { continue }
                let skippable = remembers && !options.force && !syncing && source.sync == nil
                // Its tables changed since: it loads, and no earlier source of this load can undo that.
                let known = try skippable ? stored(kind: source.kind, url: remote.displayName).flatMap { known in
                    try KindTablesState.current(of: source.kind, on: connection) == known.tablesState ? known : nil
                } : nil
                let candidate = known.map { Candidate(kind: source.kind, url: remote.displayName, runID: $0.runID, tablesState: $0.tablesState) }
                guard let file = try download(remote, known: known) else {
                    result.candidates[index] = candidate
                    notModified.append((index, remote))
                    continue
                }
                try take(file, for: index, remote: remote, into: &result)
                if let known, known.sha256 == result.records[index]?.sha256 { result.candidates[index] = candidate }
            }
            if result.candidates.count == result.sources.count {
                result.unchanged = result.candidates.sorted { $0.key < $1.key }.map(\.value.unchanged)
                result.removeDownloads()
                return Result(unchanged: result.unchanged)
            }
            for (index, remote) in notModified {
                guard let file = try download(remote, known: nil) else { continue }
                try take(file, for: index, remote: remote, into: &result)
            }
        } catch {
            result.removeDownloads()
            throw error
        }
        return result
    }

    /// Makes `file` the content of source `index`, with what to record of it.
    private func take(_ file: FetchedFile, for index: Int, remote: RemoteLocation, into result: inout Result) throws {
        result.downloads.append(file)
        result.sources[index].readPath = file.path
        result.records[index] = Record(kind: result.sources[index].kind, url: remote.displayName, etag: file.etag,
                                       lastModified: file.lastModified, sha256: try Self.sha256(of: file.path))
    }

    /// Whether `candidate`'s tables are, now, as its last load left them: then loading it again
    /// changes nothing. False for no candidate.
    func isUnchanged(_ candidate: Candidate?) throws -> Bool {
        guard let candidate else { return false }
        return try KindTablesState.current(of: candidate.kind, on: connection) == candidate.tablesState
    }

    /// The candidates found unchanged at their turn, once the load ended; the runs recorded for
    /// them beforehand (`runIDs`) are removed, since they did nothing.
    func unchanged(_ candidates: [Candidate], droppingRuns runIDs: [Int]) throws -> [UnchangedSource] {
        if !runIDs.isEmpty { try connection.execute("delete from import_runs where id = any(\(runIDs))") }
        return candidates.map(\.unchanged)
    }

    /// Downloads `remote`, conditionally on `known`'s validators when given; nil when the server
    /// answered that `known`'s content is current (304).
    private func download(_ remote: RemoteLocation, known: StoredSource?) throws -> FetchedFile? {
        try Self.download(remote, known: known, options: options)
    }

    /// Downloads `remote` once, as an import would, into a temporary file the caller removes: a
    /// refused link, a sign-in page or a limit passed is the import's own error.
    static func download(_ remote: RemoteLocation, options: FetchOptions) throws -> FetchedFile {
        guard let file = try download(remote, known: nil, options: options) else {
            throw CruBatchError.unreadable("\(remote.displayName): the server sent no content")
        }
        return file
    }

    private static func download(_ remote: RemoteLocation, known: StoredSource?, options: FetchOptions) throws -> FetchedFile? {
        var request = FetchRequest(url: remote.fetchURL, etag: known?.etag, lastModified: known?.lastModified,
                                   caBundle: options.caBundle)
        request.limits.totalTimeout = options.timeout
        request.limits.maxBytes = options.maxBytes
        request.allowsPrivateRedirects = options.allowPrivateRedirects
        let outcome: FetchOutcome
        do {
            outcome = try HTTPFetcher.fetch(request)
        } catch {
            throw Self.explained(error, remote: remote)
        }
        guard case .fetched(let file) = outcome else { return nil }
        do {
            try Self.refuseWebPage(file, remote: remote)
        } catch {
            file.remove()
            throw error
        }
        return file
    }

    /// Records in `sources` what a load of a URL read, under its run, with the state the load
    /// left its kind's tables in.
    func record(_ record: Record, runID: Int) throws {
        let state = try KindTablesState.current(of: record.kind, on: connection)
        try connection.execute("""
            insert into sources (kind, url, etag, last_modified, sha256, run_id, tables_state)
            values (\(record.kind.rawValue), \(record.url), \(record.etag), \(record.lastModified), \(record.sha256), \(runID), \(state))
            on conflict (kind, url) do update set etag = excluded.etag, last_modified = excluded.last_modified,
                sha256 = excluded.sha256, run_id = excluded.run_id, tables_state = excluded.tables_state,
                fetched_at = now(), updated_at = now()
            """)
    }

    /// What the last load of a URL read.
    private struct StoredSource {
        let etag: String?
        let lastModified: String?
        let sha256: String
        let runID: Int
        let tablesState: String
    }

    /// What the last import of `url` as `kind` read, when that import still stands complete (not
    /// undone, no row rejected) and recorded its tables' state; nil otherwise.
    private func stored(kind: Kind, url: String) throws -> StoredSource? {
        try connection.query("""
            select s.etag, s.last_modified, s.sha256, s.run_id, s.tables_state from sources s
            join import_runs r on r.id = s.run_id and r.status = \(RunStatus.succeeded) and r.rows_rejected = 0
            where s.kind = \(kind.rawValue) and s.url = \(url) and s.tables_state is not null
            """).rows.first.map { row in
            let (etag, lastModified, sha256, runID, state) = try row.decode((String?, String?, String, Int, String).self)
            return StoredSource(etag: etag, lastModified: lastModified, sha256: sha256, runID: runID, tablesState: state)
        }
    }

    /// A fetch error, with how to share a Google Sheet when its server refused access.
    private static func explained(_ error: FetchError, remote: RemoteLocation) -> FetchError {
        guard case .status(let status) = error.reason, status == 401 || status == 403 else { return error }
        var explained = error
        explained.message += remote.isGoogleSheet
            ? ": share the sheet as anyone with the link can view, or publish it to the web (File > Share > Publish to web)"
            : ": the link needs a login; give a link anyone can read"
        return explained
    }

    /// Refuses an HTML page (a sign-in page, a viewer) where a table or a calendar was expected.
    private static func refuseWebPage(_ file: FetchedFile, remote: RemoteLocation) throws {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 512)).map { Array($0) } ?? []
        guard WebPage.starts(start) else { return }
        let advice = remote.isGoogleSheet
            ? "share the sheet as anyone with the link can view, or publish it to the web (File > Share > Publish to web)"
            : "give the link of the file itself (CSV, .xlsx or .ics), readable without a login"
        throw CruBatchError.unreadable(
            "\(remote.displayName): the server sent a web page (HTML), not CSV, a workbook or a calendar; probably a sign-in page: \(advice)")
    }

    /// The SHA-256 of the file at `path`, read a megabyte at a time.
    static func sha256(of path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CruBatchError.fileNotFound(path) }
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalizeHex()
    }
}

/// How an HTML document starts: after a BOM and white space, `<!DOCTYPE html`, `<html` or `<head`
/// (any case). No CSV header, workbook or calendar starts so.
enum WebPage {
    static func starts(_ bytes: [UInt8]) -> Bool {
        var text = bytes[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || (0x09...0x0D).contains($0) }
        let head = String(decoding: text.prefix(14), as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.hasPrefix("<html") || head.hasPrefix("<head")
    }
}
