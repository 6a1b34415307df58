import ArgumentParser
import CruBatch
import Foundation
import PostgresClient
import StaffConsole

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the staff console: imports previewed, applied and undone, and the runs, in a browser, signed in.",
        discussion: """
        Staff sign in at /login with an account of `crubatch staff`. A campus account loads and sees the rows of its campuses only; a viewer reads.

        The console listens on 127.0.0.1 only unless told otherwise; put it behind a TLS proxy (an nginx example: scripts/schedule/crubatch-console.nginx.conf) to reach it from elsewhere, and give --secure-cookies there. It stops on SIGINT or SIGTERM.

        Examples:
          crubatch serve
          crubatch serve --listen 127.0.0.1:8080 --secure-cookies
        """)

    @Option(help: ArgumentHelp("Address and port to listen on; port 0 takes a free one.", valueName: "host:port"))
    var listen = "127.0.0.1:8080"
    @Option(help: "Minutes a session may be idle before it is over.") var idleMinutes = 480
    @Flag(help: "Send cookies over HTTPS only (behind a TLS proxy).") var secureCookies = false
    @Flag(help: "A proxy on this machine forwards the requests: count sign-ins by the address it puts last in X-Forwarded-For.")
    var behindProxy = false
    @Option(help: ArgumentHelp("Where uploaded files and their previews are kept (a folder per preview, readable by this user only).",
                               valueName: "folder"))
    var workFolder = NSTemporaryDirectory() + "crubatch-console"
    @Option(help: ArgumentHelp("The largest upload taken, in megabytes.", valueName: "MB")) var uploadLimit = 20
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard listenAddress != nil else { throw ValidationError("--listen takes host:port, e.g. 127.0.0.1:8080") }
        if idleMinutes < 1 { throw ValidationError("--idle-minutes must be at least 1") }
        if !(1...1024).contains(uploadLimit) { throw ValidationError("--upload-limit takes 1 to 1024 megabytes") }
    }

    private var listenAddress: (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port), colon > listen.startIndex else { return nil }
        return (String(listen[..<colon]), port)
    }

    func run() throws {
        guard let (host, port) = listenAddress else { return }
        let url = ConnectionString.resolve(explicit: database.databaseURL, environment: ProcessInfo.processInfo.environment)
        // The schema must be current before the first page; the error is the command's, with its exit code.
        try Console(command: "serve", quiet: false, json: false).run {
            _ = try StaffAccounts(connection: PostgresConnection(url))
            return .ok
        }
        let server = ConsoleServer(configuration: .init(host: host, port: port, databaseURL: url, workFolder: workFolder,
                                                        idleMinutes: idleMinutes, secureCookies: secureCookies, behindProxy: behindProxy,
                                                        uploadLimit: uploadLimit << 20))
        let finished = DispatchSemaphore(value: 0)
        let failure = Failure()
        Task {
            do {
                try await server.run { address in
                    printLine("crubatch console listening on \(address)")
                }
            } catch {
                failure.error = "\(error)"
            }
            finished.signal()
        }
        finished.wait()
        if let error = failure.error {
            printError("crubatch serve: \(error)")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }

    /// What stopped the server, handed from its task to the waiting command.
    private final class Failure: @unchecked Sendable {
        var error: String?
    }
}
