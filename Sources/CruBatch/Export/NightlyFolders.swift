import Foundation
import PostgresClient

/// The folders `nightly` has written (`nightly_folders`) and, in each, its dated exports with their
/// manifests, for the console to list and hand out: a file is given only when its dated folder's
/// manifest lists it, so no name a request makes up reaches any other file.
public struct NightlyFolders {
    /// One `--out` folder: its dated exports, newest first.
    public struct Folder: Sendable {
        public let path: String
        public let lastWritten: String
        public let dates: [String]
    }

    let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Every folder nightly wrote, the most recently written first, with the dated exports in it.
    public func list() throws -> [Folder] {
        try connection.query("""
            select out_dir, to_char(last_written_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') from nightly_folders
            order by last_written_at desc
            """).rows.map { row in
            let (path, written) = try row.decode((String, String).self)
            let dates = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                .filter { Self.isDate($0) && FileManager.default.fileExists(atPath: path + "/" + $0 + "/manifest.json") }
                .sorted(by: >)
            return Folder(path: path, lastWritten: written, dates: dates)
        }
    }

    /// The manifest of the export of `date` in `folder`, if nightly wrote one there.
    public static func manifest(folder: Folder, date: String) -> NightlyExport.Manifest? {
        guard folder.dates.contains(date) else { return nil }
        return try? NightlyExport.Manifest.read(from: folder.path + "/" + date + "/manifest.json")
    }

    /// Where the file `name` of the export of `date` in `folder` is, if that export's manifest lists it.
    public static func file(folder: Folder, date: String, name: String) -> String? {
        guard let manifest = manifest(folder: folder, date: date), manifest.files.contains(where: { $0.file == name }) else { return nil }
        return folder.path + "/" + date + "/" + name
    }

    private static func isDate(_ name: String) -> Bool {
        name.count == 10 && name.enumerated().allSatisfy { index, character in
            index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
        }
    }
}
