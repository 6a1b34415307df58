import Foundation
import HTTPFetch
import PostgresClient

/// An import done from the console in two steps: a preview (the dry run `import --dry-run --report
/// --rejects` makes, recorded with the file's SHA-256 and the state of the tables it was computed on),
/// then Apply, which loads the same file only while both are unchanged. Both steps are `Importer`
/// runs, restricted to the account's campuses; each preview is its account's alone.
public struct StaffImports {
    /// A preview: the dry run's report and where its HTML report and rejects workbook are.
    public struct Preview: Sendable {
        public let id: String
        public let kind: Kind
        public let fileName: String
        public let report: ImportReport
        /// The HTML report of the dry run, and the rejects workbook when rows were refused.
        public let reportPath: String
        public let rejectsPath: String?
    }

    /// What Apply did: loaded the previewed file, or found it or the data changed and previewed again.
    public enum Applied: Sendable {
        case loaded(ImportReport, runID: Int?)
        case changed(Preview)
    }

    /// The kinds a campus account may load: those whose rows reach a campus (`DatabaseChecks.campusPath`).
    public static let campusKinds: [Kind] = Kind.allCases.filter { DatabaseChecks.campusPath(of: KindSpec.of($0)) != nil }

    let connection: PostgresConnection
    let account: StaffAccount
    /// The folder each preview keeps its file and reports in, one sub-folder per preview.
    let folder: String

    public init(connection: PostgresConnection, account: StaffAccount, folder: String) {
        self.connection = connection
        self.account = account
        self.folder = folder
    }

    /// A new preview's folder, where the uploaded file is then written (`file` inside it).
    public static func newPreviewFolder(in folder: String) throws -> (id: String, path: String) {
        let id = StaffSessions.randomHex()
        let path = folder + "/" + id
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return (id, path)
    }

    /// The file of preview `id` in `folder`, named by its extension as uploaded.
    public static func uploadPath(in folder: String, id: String, fileName: String) -> String {
        let ending = fileName.lowercased().hasSuffix(".xlsx") ? ".xlsx" : fileName.lowercased().hasSuffix(".ics") ? ".ics" : ".csv"
        return folder + "/" + id + "/upload" + ending
    }

    /// Downloads `link` (a Google Sheets link, a feed, any URL an import reads) once into preview `id`'s
    /// folder, as an upload would have put it there; the name it goes by (its password masked). The
    /// preview and Apply then read that copy, so Apply loads exactly what was previewed.
    public func download(_ link: String, id: String) throws -> String {
        guard let remote = RemoteLocation(link) else {
            throw CruBatchError.usage("\(HTTPFetcher.masked(link)) is not an http(s) link")
        }
        let file = try SourceFetch.download(remote, options: FetchOptions())
        defer { file.remove() }
        // Named by what came, told by its bytes as every file read is: the page and the report then say
        // what it is.
        let ending = switch FileFormat.ofInput(path: file.path) {
        case .workbook: ".xlsx"
        case .calendar: ".ics"
        case .csv: ".csv"
        }
        let name = ending == ".csv" || remote.displayName.lowercased().hasSuffix(ending) ? remote.displayName
            : remote.displayName + " " + ending
        // The download has no name of its own (it reads through /proc), so it is copied by its bytes.
        let target = Self.uploadPath(in: folder, id: id, fileName: name)
        guard let source = FileHandle(forReadingAtPath: file.path),
              FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
              let copy = FileHandle(forWritingAtPath: target) else { throw CruBatchError.fileNotFound(name) }
        defer { try? source.close(); try? copy.close() }
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try copy.write(contentsOf: chunk) }
        return name
    }

    /// Checks the uploaded file of preview `id` as a dry run and records the preview.
    public func preview(id: String, kind: Kind, fileName: String) throws -> Preview {
        try refuseKind(kind)
        let preview = try dryRun(id: id, kind: kind, fileName: fileName)
        try connection.execute("""
            insert into staff_previews (id, account_id, kind, file_name, sha256, tables_state)
            values (\(id), \(account.id), \(kind.rawValue), \(fileName), \(try sha256(of: id, fileName: fileName)),
                    \(try KindTablesState.current(of: kind, on: connection)))
            """)
        return preview
    }

    /// The preview `id` of this account, as it was shown (nil: none of this account's).
    public func preview(_ id: String) throws -> Preview? {
        guard let (kind, fileName) = try stored(id) else { return nil }
        let rejects = folder + "/" + id + "/rejects.xlsx"
        return Preview(id: id, kind: kind, fileName: fileName, report: ImportReport(),
                       reportPath: folder + "/" + id + "/report.html",
                       rejectsPath: FileManager.default.fileExists(atPath: rejects) ? rejects : nil)
    }

    /// Loads preview `id`'s file, if neither it nor the tables it reads changed since the preview;
    /// otherwise previews it again.
    public func apply(_ id: String) throws -> Applied? {
        guard let (kind, fileName) = try stored(id) else { return nil }
        try refuseKind(kind)
        let recorded = try connection.query("""
            select sha256, tables_state, applied_run_id is not null from staff_previews where id = \(id)
            """).rows[0].decode((String, String, Bool).self)
        if recorded.2 { throw CruBatchError.refused("this preview was applied already; see the runs") }
        let unchanged = try sha256(of: id, fileName: fileName) == recorded.0
            && KindTablesState.current(of: kind, on: connection) == recorded.1
        guard unchanged else {
            try connection.execute("delete from staff_previews where id = \(id)")
            return .changed(try preview(id: id, kind: kind, fileName: fileName))
        }
        var options = ImportOptions()
        options.campuses = campuses
        let report = try Importer(connection: connection, options: options)
            .run([Importer.Source(kind: kind, path: Self.uploadPath(in: folder, id: id, fileName: fileName), displayName: fileName)])
        let runID = report.files.first?.runID
        if report.wrote, let runID {
            try connection.execute("update staff_previews set applied_run_id = \(runID) where id = \(id)")
        }
        return .loaded(report, runID: runID)
    }

    private var campuses: [String]? { account.role == .campus ? account.campuses : nil }

    private func refuseKind(_ kind: Kind) throws {
        if account.role == .viewer { throw CruBatchError.refused("a viewer account reads only") }
        if let refusal = Self.kindRefusal(kind, for: account) { throw CruBatchError.refused(refusal) }
    }

    /// Why `account` may not load `kind`, or nil when it may.
    public static func kindRefusal(_ kind: Kind, for account: StaffAccount) -> String? {
        guard account.role == .campus, !campusKinds.contains(kind) else { return nil }
        return "a campus account loads \(campusKinds.map(\.rawValue).joined(separator: ", ")) only; an admin loads \(kind.rawValue)"
    }

    private func dryRun(id: String, kind: Kind, fileName: String) throws -> Preview {
        var options = ImportOptions()
        options.dryRun = true
        options.campuses = campuses
        options.reportPath = folder + "/" + id + "/report.html"
        options.rejectsPath = folder + "/" + id + "/rejects.xlsx"
        let report = try Importer(connection: connection, options: options)
            .run([Importer.Source(kind: kind, path: Self.uploadPath(in: folder, id: id, fileName: fileName), displayName: fileName)])
        let rejects = options.rejectsPath.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        return Preview(id: id, kind: kind, fileName: fileName, report: report, reportPath: options.reportPath ?? "",
                       rejectsPath: rejects)
    }

    private func stored(_ id: String) throws -> (Kind, String)? {
        guard let row = try connection.query("""
            select kind, file_name from staff_previews where id = \(id) and account_id = \(account.id)
            """).rows.first else { return nil }
        let (kind, fileName) = try row.decode((String, String).self)
        return Kind(rawValue: kind).map { ($0, fileName) }
    }

    private func sha256(of id: String, fileName: String) throws -> String {
        try SourceFetch.sha256(of: Self.uploadPath(in: folder, id: id, fileName: fileName))
    }
}
