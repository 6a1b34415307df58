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

struct NotifyCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Email students, group leaders, drivers and passengers what changed for them (each message once).",
        discussion: """
        Messages wait in one outbox, each of a kind: joined (to each leader of the group, whoever added the member: the app, import or place), welcome (to a student placed by place, or added by import memberships --welcome: the group, when and where it meets, its leaders' names, emails and phones), left (to each leader, when a membership ends). A leader's message replies to the student; a student's to their first leader.

        Rides, one message per leg of a seat: ride-paired (to the driver and to the passenger, each with the other's name, email and phone, the pickup and when the car leaves), ride-full (to the driver, when the last seat of a leg is taken), ride-cancelled (to each passenger, when the driver cancels or no longer drives that way), seat-freed (to the driver, when a passenger cancels). Each replies to the other one, but ride-full.

        notify sends the due ones, marks each sent as it goes, retries failures with exponential backoff and jitter, and marks a notification dead after --max-attempts. A leader with more than --digest-over group messages due gets them as one digest; a driver or passenger with more than --digest-over ride messages, one rides digest.

        SMTP: --smtp-url or CRUBATCH_SMTP_URL, e.g. smtp://user:pass@mail.example.org:587 (STARTTLS when offered; ?tls=require to insist), smtps://user:pass@mail.example.org (TLS).

        Examples:
          crubatch notify --transport stdout        preview every due message, decoded; changes nothing
          crubatch notify --preview welcome         one welcome from real data, as it would be sent
          crubatch notify --preview ride-paired     one ride-paired from real data
          crubatch notify --digest                  one message per leader (and one per rider)
          crubatch notify --now                     also send what waits for its retry backoff
          crubatch notify --requeue dead --since 2026-11-20    try the dead ones again (then run notify)
          crubatch notify --watch                   stay up, woken by new joins; stop with SIGTERM
          crubatch notify --quiet                   for cron: silent unless something fails

        A failure that concerns one message (a recipient or the content refused) is that message's alone: notify goes on with the next. A failure of the server or of the login stops the run, and so do \(Notifier.consecutiveFailureLimit) failed messages in a row; the notifications left are postponed without counting an attempt, and notify says when the next retry is due.

        Through a database failover (a DATABASE_URL naming the primary and its standbys with target_session_attrs=read-write), notify connects again to the new primary, for up to a minute, marks sent the messages the old primary had not recorded, and goes on: the failover sends nothing twice.

        Exit codes: 0 delivered; 1 some refused or dead, or nothing to preview; 69 database or mail server unavailable (or \(Notifier.consecutiveFailureLimit) messages in a row failed); 75 the database failed over and no new primary answered within a minute; 78 the mail server refused the login.
        """
    )

    @Flag(help: "Stay up, woken by new joins (LISTEN/NOTIFY) and due retries; stop cleanly on SIGINT/SIGTERM.")
    var watch = false
    @Flag(inversion: .prefixedNo,
          help: "One message per recipient listing all their group news, and one their ride news (--no-digest: never; default: past --digest-over).")
    var digest: Bool?
    @Option(help: ArgumentHelp("A recipient with more than N group (or ride) messages due gets them as one digest.", valueName: "N"))
    var digestOver = 3
    @Flag(help: "Also send the pending messages still waiting for their retry backoff.")
    var now = false
    @Option(help: ArgumentHelp("Put failed or dead notifications back to pending (attempts reset), report how many, send nothing.",
                               valueName: "failed|dead"))
    var requeue: RequeueReport.Status?
    @Option(help: ArgumentHelp("With --requeue: only those that failed or died since DATE (YYYY-MM-DD or YYYY-MM-DD HH:MM, local time).",
                               valueName: "DATE"))
    var since: String?
    @Option(help: ArgumentHelp("Print one message of KIND (\(Notifier.kindNames)) rendered from real data: a pending one, else the most recent. Changes nothing.",
                               valueName: "KIND"))
    var preview: String?
    @Option(help: ArgumentHelp("A folder of templates (KIND.mustache, digest.mustache, rides-digest.mustache) replacing the built-in wording (default: CRUBATCH_TEMPLATES).",
                               valueName: "DIR"))
    var templates: String?
    @Option(help: "smtp, or stdout to preview the due messages, decoded, without sending or marking anything.")
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
    @Option(help: ArgumentHelp("Send over N SMTP connections at once, each with its own database session (1-8; default 1). Each message is still sent once; use more than 1 only where the mail server allows that many connections.",
                               valueName: "N"))
    var connections = 1
    @OptionGroup var output: OutputOptions
    @OptionGroup var database: DatabaseOptions

    enum TransportChoice: String, ExpressibleByArgument, CaseIterable { case smtp, stdout }

    func validate() throws {
        if maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if retryBase <= 0 || poll <= 0 { throw ValidationError("--retry-base and --poll must be positive") }
        if digestOver < 0 { throw ValidationError("--digest-over must be 0 or more") }
        if watch && transport == .stdout { throw ValidationError("--watch needs --transport smtp") }
        if since != nil && requeue == nil { throw ValidationError("--since goes with --requeue") }
        if requeue != nil && (watch || preview != nil) { throw ValidationError("--requeue only requeues: run notify again to send") }
        if preview != nil && watch { throw ValidationError("--preview prints one message: not with --watch") }
        if !(1...8).contains(connections) { throw ValidationError("--connections must be 1 to 8") }
        if connections > 1 && (watch || transport == .stdout || preview != nil || requeue != nil) {
            throw ValidationError("--connections sends due messages once over SMTP: not with --watch, --transport stdout, --preview or --requeue")
        }
        _ = try sinceDate()
    }

    /// `--since` as a point in time: a local date's start, or a local date and time.
    func sinceDate() throws -> Date? {
        guard let since else { return nil }
        let text = since.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "T", with: " ")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        throw ValidationError("--since takes YYYY-MM-DD or YYYY-MM-DD HH:MM (got \"\(since)\")")
    }

    var console: Console { output.console("notify") }

    func report(to console: Console) throws -> ExitStatus {
        if let requeue {
            return console.finish(try RequeueReport.requeue(requeue, since: try sinceDate(), connection: database.connect()))
        }
        let environment = ProcessInfo.processInfo.environment
        let options = try notifyOptions(environment)
        // Copied out of the command for the senders' closures, which may run on other threads.
        let database = self.database
        if let preview {
            let notifier = try Notifier(connection: try database.connect(), transport: StdoutTransport(), options: options)
            return console.finish(MessagePreview(try notifier.preview(kind: preview)))
        }
        guard transport == .smtp else {
            // A JSON preview prints its messages inside the one document, after the run.
            let collector = console.json ? CollectingTransport() : nil
            let notifier = try Notifier(connection: try database.connect(), transport: collector ?? StdoutTransport(),
                                        options: options, reconnect: { try database.connect() })
            let summary = try notifier.deliverDue()
            guard let collector else { return report(summary, to: console) }
            let messages = collector.messages.map(MessagePreview.init)
            return console.finish(NotifyPreviewReport(summary: summary, messages: messages), status: summary.exitStatus)
        }
        guard let url = smtpURL ?? environment["CRUBATCH_SMTP_URL"], !url.isEmpty else {
            throw CruBatchError.usage("no mail server: give --smtp-url or set CRUBATCH_SMTP_URL (or use --transport stdout)")
        }
        // Each sender's own: an SMTP connection (the URL checked before the database is asked) and a
        // database session, made again after a failover.
        let makeNotifier: @Sendable () throws -> Notifier = {
            let mail: SMTPTransport
            do { mail = try SMTPTransport(url: url) } catch { throw CruBatchError.usage("--smtp-url: \(error)") }
            return try Notifier(connection: try database.connect(), transport: mail, options: options,
                                reconnect: { try database.connect() })
        }
        guard watch else { return report(try Notifier.deliverDue(senders: connections, makeNotifier: makeNotifier), to: console) }
        let notifier = try makeNotifier()
        installStopHandlers()
        console.note("notify: watching for new joins (stop with Ctrl-C or SIGTERM)")
        try notifier.watch(pollInterval: poll, shouldStop: { stopSignal != 0 }) { summary in
            console.note("notify: \(summary.text)")
        }
        console.note("notify: stopped")
        return .ok
    }

    /// The options, from the flags and else the environment (CRUBATCH_TEMPLATES, CRUBATCH_FROM).
    private func notifyOptions(_ environment: [String: String]) throws -> NotifyOptions {
        var options = NotifyOptions()
        options.digest = digest
        options.digestOver = digestOver
        options.ignoreBackoff = now
        options.maxAttempts = maxAttempts
        options.retryBase = retryBase
        options.preview = transport == .stdout || preview != nil
        if let folder = templates ?? environment["CRUBATCH_TEMPLATES"], !folder.isEmpty {
            options.templates = URL(fileURLWithPath: folder)
        }
        if let sender = from ?? environment["CRUBATCH_FROM"] {
            do { options.from = try EmailAddress.parse(sender) } catch { throw CruBatchError.usage("--from: \(error)") }
        }
        return options
    }

    /// A run's summary: the JSON document, or one line on stderr (stdout carries a preview's messages).
    private func report(_ summary: NotifySummary, to console: Console) -> ExitStatus {
        let status = summary.exitStatus
        if console.json { return console.finish(summary, status: status) }
        if !(console.quiet && status == .ok) { printError("notify: \(summary.text)") }
        return status
    }
}

extension RequeueReport.Status: ExpressibleByArgument {}
