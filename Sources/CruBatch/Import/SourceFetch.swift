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

    /// The sources left to load (each URL's `readPath` its download), and the unchanged ones.
    struct Result {
        var sources: [Importer.Source] = []
        var unchanged: [UnchangedSource] = []
        /// What to record for each URL of `sources`, by its index there.
        var records: [Int: Record] = [:]
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

    /// Fetches every URL of `sources`; files pass through as they are. Throws `FetchError` for a
    /// server that fails, `CruBatchError.unreadable` for a web page where a table was expected.
    func fetch(_ sources: [Importer.Source]) throws -> Result {
        var result = Result()
        do {
            for source in sources {
                guard let remote = RemoteLocation(source.path, sheet: source.sheet ?? sheet) else {
                    result.sources.append(source)
                    continue
                }
                let known = remembers && !options.force ? try stored(kind: source.kind, url: remote.displayName) : nil
                var request = FetchRequest(url: remote.fetchURL, etag: known?.etag, lastModified: known?.lastModified,
                                           caBundle: options.caBundle)
                request.limits.totalTimeout = options.timeout
                request.limits.maxBytes = options.maxBytes
                let outcome: FetchOutcome
                do {
                    outcome = try HTTPFetcher.fetch(request)
                } catch {
                    throw Self.explained(error, remote: remote)
                }
                guard case .fetched(let file) = outcome else {
                    if let known { result.unchanged.append(UnchangedSource(kind: source.kind, url: remote.displayName, runID: known.runID)) }
                    continue
                }
                result.downloads.append(file)
                try Self.refuseWebPage(file, remote: remote)
                let sha256 = try Self.sha256(of: file.path)
                if let known, known.sha256 == sha256 {
                    result.unchanged.append(UnchangedSource(kind: source.kind, url: remote.displayName, runID: known.runID))
                    continue
                }
                var fetched = source
                fetched.readPath = file.path
                result.records[result.sources.count] = Record(kind: source.kind, url: remote.displayName, etag: file.etag,
                                                              lastModified: file.lastModified, sha256: sha256)
                result.sources.append(fetched)
            }
        } catch {
            result.removeDownloads()
            throw error
        }
        return result
    }

    /// Records in `sources` what the load of each URL read, under the run that loaded it.
    func record(_ records: [Int: Record], runIDs: [Int]) throws {
        for (index, record) in records.sorted(by: { $0.key < $1.key }) {
            let runID: Int? = index < runIDs.count ? runIDs[index] : nil
            try connection.execute("""
                insert into sources (kind, url, etag, last_modified, sha256, run_id)
                values (\(record.kind.rawValue), \(record.url), \(record.etag), \(record.lastModified), \(record.sha256), \(runID))
                on conflict (kind, url) do update set etag = excluded.etag, last_modified = excluded.last_modified,
                    sha256 = excluded.sha256, run_id = excluded.run_id, fetched_at = now(), updated_at = now()
                """)
        }
    }

    /// What the last import of `url` as `kind` that still stands read (not one undone since).
    private func stored(kind: Kind, url: String) throws -> (etag: String?, lastModified: String?, sha256: String, runID: Int)? {
        try connection.query("""
            select s.etag, s.last_modified, s.sha256, s.run_id from sources s
            join import_runs r on r.id = s.run_id and r.status = 'succeeded'
            where s.kind = \(kind.rawValue) and s.url = \(url)
            """).rows.first?.decode((String?, String?, String, Int).self)
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

    private static func sha256(of path: String) throws -> String {
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
