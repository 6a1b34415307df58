import Foundation

/// Where the tests find the repository, the built `crubatch` binary and the servers scripts/test started.
public enum TestEnvironment {
    /// The repository's root folder, found from this file's place in it.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // CruBatchTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository

    /// The path of `fixtures/<path>`.
    public static func fixture(_ path: String) -> String { root.appendingPathComponent("fixtures/" + path).path }

    /// The PostgreSQL server's URL from scripts/test; a missing one is a failure, not a skip.
    public static func adminURL() throws -> String {
        try required("CRUBATCH_TEST_DATABASE_URL", """
            these tests need a real PostgreSQL. Run scripts/test, or start one with scripts/pg start and \
            export CRUBATCH_TEST_DATABASE_URL=$(scripts/pg url), e.g. postgresql://postgres@127.0.0.1:54329/crubatch
            """)
    }

    /// The `crubatch` executable built next to the test bundle.
    public static let binary: String = {
        var candidates: [URL] = []
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            var folder = directory
            for _ in 0..<4 {
                let path = folder.appendingPathComponent("crubatch").path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: path) {
                    return path
                }
                folder.deleteLastPathComponent()
            }
        }
        return root.appendingPathComponent(".build/debug/crubatch").path
    }()

    /// The value of a variable scripts/test exports; without it the test fails, saying how to set it.
    static func required(_ variable: String, _ howToSetIt: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            throw TestSetupError("\(variable) is not set: \(howToSetIt)")
        }
        return value
    }
}
