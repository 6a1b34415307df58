import Foundation

/// A dump of the old Keystone app's database, written by fixtures/keystone/generate.py with Debian's
/// python3-bson: `dump/keystone/*.bson` as mongodump writes them, and the same documents as
/// mongoexport's relaxed and canonical Extended JSON.
public struct KeystoneDump: Sendable {
    public let root: String
    /// The mongodump folder of the database (`dump/keystone`).
    public var bson: String { root + "/dump/keystone" }
    public var relaxedJSON: String { root + "/relaxed" }
    public var canonicalJSON: String { root + "/canonical" }

    /// The collections the generator writes.
    public static let collections = ["campuses", "ministries", "ministryteams", "communitygroups", "users", "events",
                                     "summermissions", "resourcetags", "resources", "rides", "passengers"]

    /// Writes a dump into `folder`; `faults` adds one document of each problem a migration reports.
    public static func generate(into folder: String, faults: Bool = false) throws -> KeystoneDump {
        let generator = TestEnvironment.fixture("keystone/generate.py")
        _ = try Python.run(script: "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
                           arguments: [generator, folder] + (faults ? ["--faults"] : []))
        return KeystoneDump(root: folder)
    }

    /// What the generator says the data holds (`expected.json`): counts by name.
    public func expected() throws -> [String: Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/expected.json"))
        return try JSONDecoder().decode([String: Int].self, from: data)
    }
}
