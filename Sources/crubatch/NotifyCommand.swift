import ArgumentParser
import CruBatch
import Foundation
import Mailer

/// Set by SIGINT/SIGTERM; the watch loop finishes the message in flight and stops.
nonisolated(unsafe) private var stopSignal: sig_atomic_t = 0

/// Makes SIGINT and SIGTERM ask the watch loop to stop. The signals are also unblocked: a parent
/// (a test runner, some supervisors) may have started us with them blocked.
private func installStopHandlers() {
    signal(SIGINT) { _ in stopSignal = 1 }
    signal(SIGTERM) { _ in stopSignal = 1 }
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
}

struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Email group leaders about students who joined their groups (each join once).",
        discussion: """
        Every new membership (from the app, import or place) queues one notification per leader of the group. notify sends the due ones, marks each sent as it goes, retries failures with exponential backoff and jitter, and marks a notification dead after --max-attempts.

        SMTP: --smtp-url or CRUBATCH_SMTP_URL, e.g. smtp://user:pass@mail.example.org:587 (STARTTLS when offered; ?tls=require to insist), smtps://user:pass@mail.example.org (TLS).

        Examples:
          crubatch notify --transport stdout        preview, changes nothing
          crubatch notify --digest                  one message per leader
          crubatch notify --watch                   stay up, woken by new joins; stop with SIGTERM
          crubatch notify --quiet                   for cron: silent unless something fails

        A failure that concerns one message (a recipient or the content refused) is that message's alone: notify goes on with the next. A failure of the server or of the login stops the run, and so do \(Notifier.consecutiveFailureLimit) failed messages in a row; the notifications left are postponed without counting an attempt.

        Exit codes: 0 delivered; 1 some refused or dead; 69 database or mail server unavailable (or \(Notifier.consecutiveFailureLimit) messages in a row failed); 78 the mail server refused the login.
        """
    )

    @Flag(help: "Stay up, woken by new joins (LISTEN/NOTIFY) and due retries; stop cleanly on SIGINT/SIGTERM.")
    var watch = false
    @Flag(help: "One message per leader listing all their new members.")
    var digest = false
    @Option(help: "smtp, or stdout to preview the messages without sending or marking anything.")
    var transport: TransportChoice = .smtp
    @Option(name: .customLong("smtp-url"), help: "smtp://user:pass@host:587 or smtps://... (default: CRUBATCH_SMTP_URL).")
    var smtpURL: String?
    @Option(help: "Sender, e.g. \"Cru Central Coast <groups@cru.example>\" (default: CRUBATCH_FROM).")
    var from: String?
    @Option(help: "Attempts before a notification is marked dead.")
    var maxAttempts = 8
    @Option(help: "Seconds before the first retry (doubling each time, with jitter).")
    var retryBase = 60.0
    @Option(help: "With --watch: seconds between checks for due retries.")
    var poll = 30.0
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    enum TransportChoice: String, ExpressibleByArgument, CaseIterable { case smtp, stdout }

    func validate() throws {
        if maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if retryBase <= 0 || poll <= 0 { throw ValidationError("--retry-base and --poll must be positive") }
        if watch && transport == .stdout { throw ValidationError("--watch needs --transport smtp") }
    }

    func run() throws {
        let console = output.console("notify")
        try console.run {
            let environment = ProcessInfo.processInfo.environment
            var options = NotifyOptions()
            options.digest = digest
            options.maxAttempts = maxAttempts
            options.retryBase = retryBase
            options.preview = transport == .stdout
            if let sender = from ?? environment["CRUBATCH_FROM"] {
                do { options.from = try EmailAddress.parse(sender) } catch { throw CruBatchError.usage("--from: \(error)") }
            }
            let mailTransport: MailTransport
            switch transport {
            case .stdout:
                mailTransport = StdoutTransport()
            case .smtp:
                guard let url = smtpURL ?? environment["CRUBATCH_SMTP_URL"], !url.isEmpty else {
                    throw CruBatchError.usage("no mail server: give --smtp-url or set CRUBATCH_SMTP_URL (or use --transport stdout)")
                }
                do { mailTransport = try SMTPTransport(url: url) } catch { throw CruBatchError.usage("--smtp-url: \(error)") }
            }
            let notifier = try Notifier(connection: try database.connect(), transport: mailTransport, options: options)
            if watch {
                installStopHandlers()
                console.note("notify: watching for new joins (stop with Ctrl-C or SIGTERM)")
                try notifier.watch(pollInterval: poll, shouldStop: { stopSignal != 0 }) { summary in
                    console.note("notify: \(summary.text)")
                }
                console.note("notify: stopped")
                return .ok
            }
            let summary = try notifier.deliverDue()
            let status = summary.exitStatus
            // The text summary goes to stderr: stdout carries the messages of a preview.
            if console.json { return console.finish(summary, status: status) }
            if !(console.quiet && status == .ok) {
                printError("notify: \(summary.text)\(options.preview ? " (preview: nothing marked)" : "")")
            }
            return status
        }
    }
}
