import BSONDocuments
import Foundation

/// The collections of the old Keystone app's MongoDB database, read from a `mongodump` folder (one
/// `.bson` file per collection, beside its `.metadata.json`) or from `mongoexport` files (one
/// `.json` file per collection, Extended JSON lines or one array, relaxed or canonical). Every
/// collection of the folder is read: those without a kind here are counted for the reconciliation.
struct KeystoneDump {
    /// The folder the collections were read from.
    let folder: String
    /// Each collection's documents, in `_id` order (an ObjectId starts with its creation time).
    let collections: [String: [KeystoneDocument]]
    /// The dump's other collections (posts, notifications, prayer requests ...), which have no kind
    /// here, with how many documents each holds.
    let others: [(collection: String, documents: Int)]
    /// The name the dump gives the campuses' collection: Keystone's `campus`, or `campuses`.
    let campusName: String

    /// The collections a migration reads, as Keystone names them (its models' names, lower case and
    /// plural). Keystone pluralises `Campus` as `campus`; `campuses` is read too.
    static let names = ["campuses", "ministries", "ministryteams", "communitygroups", "users", "events",
                        "summermissions", "resourcetags", "resources", "rides", "passengers"]

    /// The files a collection may be read from, as Keystone and mongodump name them.
    private static func fileNames(of collection: String) -> [String] {
        collection == "campuses" ? ["campus", "campuses"] : [collection]
    }

    /// Reads the dump in `folder`, or in its only subfolder that holds one (`dump/` holds
    /// `dump/DATABASE/`). Throws `CruBatchError.fileNotFound` or `.unreadable`.
    static func read(_ folder: String) throws -> KeystoneDump {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CruBatchError.fileNotFound(folder)
        }
        let location = try holder(of: folder)
        var collections: [String: [KeystoneDocument]] = [:]
        var read: Set<String> = []
        var campusName = "campuses"
        for name in names {
            let files = fileNames(of: name).flatMap { [$0 + ".bson", $0 + ".json"] }
                .filter { FileManager.default.fileExists(atPath: location + "/" + $0) }
            guard let file = files.first else { continue }
            if files.count > 1 {
                throw CruBatchError.unreadable("\(location) holds \(files.joined(separator: " and ")): one collection in two files; keep one")
            }
            read.insert(file)
            if name == "campuses" { campusName = String(file.prefix { $0 != "." }) }
            let shown = String(file.prefix { $0 != "." })
            collections[name] = try documents(of: location + "/" + file).map { KeystoneDocument(collection: name, shownAs: shown, fields: $0) }
                .sorted { ($0.id ?? "") < ($1.id ?? "") }
        }
        var others: [(String, Int)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: location).sorted()
        where !read.contains(file) && (file.hasSuffix(".bson") || (file.hasSuffix(".json") && !file.hasSuffix(".metadata.json"))) {
            others.append((String(file.prefix { $0 != "." }), try documents(of: location + "/" + file).count))
        }
        return KeystoneDump(folder: location, collections: collections, others: others, campusName: campusName)
    }

    /// The documents of one `.bson` or `.json` file.
    private static func documents(of path: String) throws -> [BSONDocument] {
        do {
            return path.hasSuffix(".bson") ? try BSONFileReader.readAll(path: path)
                : try ExtendedJSONReader.readAll(path: path).map(\.document)
        } catch {
            throw CruBatchError.unreadable(error.description)
        }
    }

    /// The folder that holds the collections' files: `folder`, or its one subfolder that does.
    private static func holder(of folder: String) throws -> String {
        func holds(_ path: String) -> Bool {
            names.flatMap(fileNames).contains { FileManager.default.fileExists(atPath: "\(path)/\($0).bson")
                || FileManager.default.fileExists(atPath: "\(path)/\($0).json") }
        }
        if holds(folder) { return folder }
        let inside = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }.filter(holds)
        guard inside.count == 1 else {
            throw CruBatchError.unreadable(inside.isEmpty
                ? "\(folder) holds no Keystone collection (\(names.flatMap(fileNames).map { $0 + ".bson" }.joined(separator: ", ")) or .json)"
                : "\(folder) holds several databases (\(inside.joined(separator: ", "))): name one of them")
        }
        return inside[0]
    }

    /// The documents of a collection (none when the dump does not have it).
    subscript(collection: String) -> [KeystoneDocument] { collections[collection] ?? [] }
}
