import BSONDocuments
import Foundation

/// The collections of the old Keystone app's MongoDB database, read from a `mongodump` folder (one
/// `.bson` file per collection, beside its `.metadata.json`) or from `mongoexport` files (one
/// `.json` file per collection, Extended JSON lines or one array, relaxed or canonical).
struct KeystoneDump {
    /// The folder the collections were read from.
    let folder: String
    /// Each collection's documents, in `_id` order (an ObjectId starts with its creation time).
    let collections: [String: [BSONDocument]]

    /// The collections a migration reads, as Keystone names them (its models' names, lower case and
    /// plural). Others (posts, notifications, prayer requests ...) have no kind here.
    static let names = ["campuses", "ministries", "ministryteams", "communitygroups", "users", "events",
                        "summermissions", "resourcetags", "resources", "rides", "passengers"]

    /// Reads the dump in `folder`, or in its only subfolder that holds one (`dump/` holds
    /// `dump/DATABASE/`). Throws `CruBatchError.fileNotFound` or `.unreadable`.
    static func read(_ folder: String) throws -> KeystoneDump {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CruBatchError.fileNotFound(folder)
        }
        let location = try holder(of: folder)
        var collections: [String: [BSONDocument]] = [:]
        for name in names {
            let base = location + "/" + name
            do {
                if FileManager.default.fileExists(atPath: base + ".bson") {
                    collections[name] = try BSONFileReader.readAll(path: base + ".bson")
                } else if FileManager.default.fileExists(atPath: base + ".json") {
                    collections[name] = try ExtendedJSONReader.readAll(path: base + ".json").map(\.document)
                }
            } catch {
                throw CruBatchError.unreadable(error.description)
            }
        }
        return KeystoneDump(folder: location, collections: collections.mapValues { documents in
            documents.sorted { ($0.id ?? "") < ($1.id ?? "") }
        })
    }

    /// The folder that holds the collections' files: `folder`, or its one subfolder that does.
    private static func holder(of folder: String) throws -> String {
        func holds(_ path: String) -> Bool {
            names.contains { FileManager.default.fileExists(atPath: "\(path)/\($0).bson")
                || FileManager.default.fileExists(atPath: "\(path)/\($0).json") }
        }
        if holds(folder) { return folder }
        let inside = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }.filter(holds)
        guard inside.count == 1 else {
            throw CruBatchError.unreadable(inside.isEmpty
                ? "\(folder) holds no Keystone collection (\(names.map { $0 + ".bson" }.joined(separator: ", ")) or .json)"
                : "\(folder) holds several databases (\(inside.joined(separator: ", "))): name one of them")
        }
        return inside[0]
    }

    /// The documents of a collection (none when the dump does not have it).
    subscript(collection: String) -> [BSONDocument] { collections[collection] ?? [] }
}
