import Foundation

/// A `crubatch` process started without waiting for it, for tests of what happens while it runs:
/// several at once, or one killed half-way.
final class BackgroundCommand {
    private let process = Process()
    private let scratch = ScratchDirectory()
    private let directory: String
    private let output: FileHandle
    private let errors: FileHandle

    init(_ arguments: [String], environment: [String: String]) throws {
        directory = try scratch.folder()
        _ = FileManager.default.createFile(atPath: directory + "/stdout", contents: nil)
        _ = FileManager.default.createFile(atPath: directory + "/stderr", contents: nil)
        output = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/stdout"))
        errors = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/stderr"))
        process.executableURL = URL(fileURLWithPath: TestEnvironment.binary)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited.removeValue(forKey: "DATABASE_URL")
        process.environment = inherited.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var isRunning: Bool { process.isRunning }

    /// Kills the process the way the kernel's OOM killer or `kill -9` would: no cleanup at all.
    func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the process to end; its exit status and what it printed.
    func finish() throws -> CommandResult {
        process.waitUntilExit()
        try output.close()
        try errors.close()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/stdout")), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/stderr")), as: UTF8.self))
    }
}

extension TestDatabase {
    /// Starts the crubatch binary against this database without waiting for it.
    func start(_ arguments: [String]) throws -> BackgroundCommand {
        try BackgroundCommand(arguments, environment: ["DATABASE_URL": url])
    }
}

/// Polls `condition` every 50 ms until it holds; fails the test after `seconds`.
func waitUntil(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw TestSetupError("timed out after \(seconds) s waiting until \(what)") }
        Thread.sleep(forTimeInterval: 0.05)
    }
}
