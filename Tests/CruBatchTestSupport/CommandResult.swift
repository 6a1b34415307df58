import Foundation

/// The outcome of running the `crubatch` binary (or another program) to its end.
public struct CommandResult {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// Runs `executable` with `arguments` and waits for it. It inherits this process's environment
    /// without DATABASE_URL (a test names its database), plus `environment`.
    public static func run(_ arguments: [String], executable: String = TestEnvironment.binary,
                           environment: [String: String] = [:]) throws -> CommandResult {
        try BackgroundCommand(arguments, executable: executable, environment: environment).finish()
    }
}

/// A program (the `crubatch` binary unless told otherwise) started without waiting for it, for tests
/// of what happens while it runs: several at once, one killed half-way, one stopped by a signal.
/// Its output goes to files (a full pipe would block it, and files need no reader thread); the
/// object kills it if it is still running when the object goes, and removes the files.
public final class BackgroundCommand {
    private let process = Process()
    private let scratch = ScratchDirectory()
    private let output: CapturedOutput
    private let errors: CapturedOutput

    /// Starts `executable` with `arguments`; the environment is as for `CommandResult.run`. The test
    /// runner starts its children with SIGINT and SIGTERM ignored, which they inherit; with
    /// `defaultSignals` the program gets them as a shell or a service manager gives them, so
    /// that they stop it.
    public init(_ arguments: [String], executable: String = TestEnvironment.binary,
                environment: [String: String] = [:], defaultSignals: Bool = false) throws {
        output = try CapturedOutput(scratch.folder() + "/stdout")
        errors = try CapturedOutput(scratch.folder() + "/stderr")
        if defaultSignals {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", """
                import os, signal, sys
                for number in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(number, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
                os.execv(sys.argv[1], sys.argv[1:])
                """, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var inherited = ProcessInfo.processInfo.environment
        inherited.removeValue(forKey: "DATABASE_URL")
        process.environment = inherited.merging(environment) { $1 }
        process.standardOutput = output.handle
        process.standardError = errors.handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var isRunning: Bool { process.isRunning }

    /// How it ended (`.exit`, or `.uncaughtSignal` when a signal killed it), once it has.
    public var terminationReason: Process.TerminationReason { process.terminationReason }

    /// What it has printed on standard output so far.
    public func stdoutSoFar() throws -> String { try output.text() }

    /// What it has printed on standard error so far.
    public func stderrSoFar() throws -> String { try errors.text() }

    /// Asks it to stop with SIGTERM, as a service manager would.
    public func terminate() { process.terminate() }

    /// Sends it `signal` (SIGINT as a terminal's Ctrl-C would).
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Kills the process the way the kernel's OOM killer or `kill -9` would: no cleanup at all.
    public func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the process to end; its exit status and what it printed.
    public func finish() throws -> CommandResult {
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: try output.text(), stderr: try errors.text())
    }
}

/// A file a child process writes its output to, read back as text.
struct CapturedOutput {
    let path: String
    /// Open for writing, to hand to `Process.standardOutput` or `standardError`.
    let handle: FileHandle

    /// Creates (or empties) the file at `path`.
    init(_ path: String) throws {
        self.path = path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Everything written so far.
    func text() throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }
}
