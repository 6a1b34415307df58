import Foundation

/// The SMTP sink scripts/test starts: aiosmtpd's Mailbox handler, which stores every message it
/// accepts as one file in a Maildir. Tests send to `url()` and read back what arrived.
public enum MailSink {
    private static let howToStartIt = """
        run scripts/test, or `scripts/smtp-sink start` and export \
        CRUBATCH_TEST_SMTP_URL=$(scripts/smtp-sink url) CRUBATCH_TEST_SMTP_MAILBOX=$(scripts/smtp-sink dir)
        """

    /// Where to send: `smtp://127.0.0.1:PORT`.
    public static func url() throws -> String {
        try TestEnvironment.required("CRUBATCH_TEST_SMTP_URL", howToStartIt)
    }

    /// The Maildir the sink writes to (new messages land in its new/ folder).
    public static func mailbox() throws -> String {
        try TestEnvironment.required("CRUBATCH_TEST_SMTP_MAILBOX", howToStartIt)
    }

    /// Every message stored since this test process started whose text contains `text`, parsed.
    public static func messages(containing text: String) throws -> [ParsedMail] {
        try rawMessages(containing: text).map(ParsedMail.init)
    }

    /// The same messages as stored, byte for byte (as text), for parsers other than `ParsedMail`.
    public static func rawMessages(containing text: String) throws -> [String] {
        let mailbox = try mailbox()
        // new/ holds what arrived; cur/ what a mail reader has since looked at.
        return ["new", "cur"].flatMap { folder -> [String] in
            let directory = mailbox + "/" + folder
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter(isFromThisRun).compactMap { name in
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return nil }
                let message = String(decoding: data, as: UTF8.self)
                return message.contains(text) ? message : nil
            }
        }
    }

    /// The stored message whose Message-ID is `<messageID>`, waiting up to `timeout` seconds for it.
    public static func message(withID messageID: String, timeout: TimeInterval = 10) throws -> ParsedMail? {
        let needle = "<\(messageID)>"
        var found: ParsedMail?
        try waitUntil(timeout: timeout) {
            found = try messages(containing: needle).first { $0.raw("Message-ID") == needle }
            return found != nil
        }
        return found
    }

    /// Whether a Maildir file may hold a message this process sent. The sink keeps every run's mail
    /// (tens of thousands of files on a busy machine) and a Maildir name starts with the second it
    /// was delivered, so files older than this process are skipped unread.
    private static func isFromThisRun(_ name: String) -> Bool {
        guard let delivered = name.split(separator: ".").first.flatMap({ TimeInterval($0) }) else { return true }
        return delivered >= processStart.timeIntervalSince1970.rounded(.down) - 1
    }

    /// When this process started, from /proc (the distant past where that cannot be read).
    private static let processStart: Date = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
              let secondsSinceBoot = uptime.split(separator: " ").first.flatMap({ TimeInterval($0) }),
              let nameEnd = stat.range(of: ")", options: .backwards) else { return .distantPast }
        // After the command name come the line's fields from the 3rd on; the 22nd is the start, in
        // clock ticks after boot.
        let fields = stat[nameEnd.upperBound...].split(separator: " ")
        guard fields.count > 19, let ticks = TimeInterval(fields[19]) else { return .distantPast }
        let startedSinceBoot = ticks / TimeInterval(sysconf(Int32(_SC_CLK_TCK)))
        return Date(timeIntervalSinceNow: startedSinceBoot - secondsSinceBoot)
    }()
}
