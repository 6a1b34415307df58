import Foundation

/// A folder of its own under the system temporary directory, removed with everything in it when the
/// object goes away. A suite keeps one as a stored property: Swift Testing makes a fresh suite value
/// for every test and lets it go when the test ends, so each test's files are gone after it.
public final class ScratchDirectory: Sendable {
    /// Where the folder goes; nothing is created there until `folder(_:)` or `writeFile(_:_:)` asks.
    private let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("crubatch-test-" + UUID().uuidString).path

    public init() {}

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The folder `name` inside this one (this one itself for ""), created with the folders above it.
    public func folder(_ name: String = "") throws -> String {
        let folder = name.isEmpty ? path : path + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `text` to the file `name` inside this folder, creating folders on the way; its path.
    @discardableResult
    public func writeFile(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try CruBatchTestSupport.writeFile(file, text)
        return file
    }
}

/// A fresh folder under the system temporary directory, removed when `body` returns (or throws).
public func withScratchDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let scratch = ScratchDirectory()
    return try withExtendedLifetime(scratch) { try body(scratch.folder()) }
}

/// Writes `bytes` to a new temporary file, runs `body` with its path, then removes it.
public func withTemporaryFile<R>(_ bytes: [UInt8], named name: String = "input.csv",
                                 _ body: (String) throws -> R) throws -> R {
    try withScratchDirectory { directory in
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try body(path)
    }
}

/// The UTF-8 bytes of a string.
public func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Writes a text file, creating its folder.
public func writeFile(_ path: String, _ text: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                            withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// The SHA-256 of a file as `sha256sum` (coreutils) prints it: an oracle independent of our hasher.
public func sha256sum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestSetupError("sha256sum \(path) exited \(process.terminationStatus)") }
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

/// A name no other test (or concurrent run) uses: `prefix_` and 12 random hex digits.
public func uniqueName(_ prefix: String) -> String {
    prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
}

/// A test's setup failed (a helper program, a missing server): the message says what.
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
