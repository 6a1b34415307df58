import ArgumentParser
import CruBatch
import FileOutput
import Foundation

/// `--quiet` and `--format text|json`, shared by every command that reports.
struct OutputOptions: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print nothing when the command succeeds. Errors and warnings still go to stderr.")
    var quiet = false

    @Option(help: "text, or json: one versioned document on stdout; a failure is a JSON error object there too.")
    var format: ReportFormat = .text

    func console(_ command: String) -> Console { Console(command: command, quiet: quiet, json: format == .json) }
}

enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// A command that reports through a `Console`: its `run()` makes the console and turns every
/// failure into its message on stderr (and a JSON error object in JSON mode) and its exit status,
/// so the command itself only does its work in `report(to:)`.
protocol ReportingCommand: ParsableCommand {
    /// Where the command reports, named as JSON documents name it (`runs show`).
    var console: Console { get }
    /// Does the command's work, prints its report through `console` and returns its exit status.
    func report(to console: Console) throws -> ExitStatus
}

extension ReportingCommand {
    func run() throws {
        let console = console
        try console.run { try report(to: console) }
    }
}

/// Where a command's words go: its report on stdout (text or JSON), notes and diagnostics on
/// stderr, nothing at all for a quiet success.
struct Console {
    let command: String
    let quiet: Bool
    let json: Bool

    /// Prints the report and returns its exit status; a quiet success prints nothing.
    func finish(_ report: some CommandReport, status: ExitStatus = .ok) -> ExitStatus {
        if quiet && status == .ok { return status }
        printLine(json ? ReportDocument.json(report, command: command) : report.text)
        return status
    }

    /// Prints a report's CSV form as it is and returns `status`; a quiet success prints nothing.
    func finish(csv: String, status: ExitStatus = .ok) -> ExitStatus {
        if !(quiet && status == .ok) { StandardStream.output.write(csv) }
        return status
    }

    /// A remark for people (progress, what was written); never in JSON mode or when quiet.
    func note(_ text: String) {
        if !quiet && !json { printError(text) }
    }

    /// A warning or a diagnostic: always on stderr.
    func warn(_ text: String) { printError(text) }

    /// Runs a command body, turning every failure into its message on stderr (and a JSON error
    /// object on stdout in JSON mode) and its exit status.
    func run(_ body: () throws -> ExitStatus) throws {
        var status: ExitStatus
        do {
            status = try body()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch let failure as any CommandFailure {
            printError("crubatch: \(failure.commandMessage)")
            if json { printLine(ReportDocument.json(error: failure, command: command)) }
            status = failure.exitStatus
        } catch {
            // Every error crubatch raises maps itself above; anything else escaped that mapping.
            let message = "this is a bug in crubatch: unexpected \(type(of: error)): \(error)"
            printError("crubatch: \(message)")
            if json { printLine(ReportDocument.json(unexpected: message, command: command)) }
            status = .software
        }
        if let failure = StandardStream.output.failure {
            // The command's work stands (an import is committed); only its report is lost. A
            // failure of the command itself keeps its own status.
            printError("crubatch: \(failure): the report is incomplete, but what the command did stands")
            if status == .ok { status = .cannotCreate }
        }
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

/// A line on standard output; a failed write is kept for `Console.run` to report (exit 73).
func printLine(_ text: String) {
    StandardStream.output.write(text + "\n")
}

/// A line on standard error; nothing can be done when that fails too.
func printError(_ text: String) {
    StandardStream.error.write(text + "\n")
}
