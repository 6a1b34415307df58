import Foundation

/// scripts/faulty-smtp, started for one test: an SMTP server on 127.0.0.1 that answers as its rules
/// say (a refusal, silence, a dropped connection) and logs every connection, command and message.
/// It stops when this object goes away, and by itself after `lifetime` seconds in any case.
public final class FaultySMTPServer: @unchecked Sendable {
    /// A step of the SMTP session that a rule can answer differently.
    public enum Step: String, Sendable {
        case greeting, ehlo, auth, mail, rcpt, data, quit
        /// The end of the message data (the line with a single dot).
        case endOfData = "eod"
    }

    /// How the server answers a step.
    public enum Action: Sendable {
        /// This reply, e.g. "550 5.1.1 no such user" (lines of a multi-line reply separated by "\n").
        case reply(String)
        /// Never answer (the server still reads what comes).
        case silence
        /// Close the connection.
        case drop
        /// Wait this many seconds, then answer as usual: a slow server.
        case pause(Double)
    }

    /// Answer `step` with `action`; only on the `connection`th connection, in the `message`th mail
    /// transaction (both counted from 1 over the server's life) or when the client's command (for
    /// `.endOfData`, the message) contains `containing`, when those are given.
    public struct Rule: Sendable {
        let argument: String

        public init(_ step: Step, connection: Int? = nil, message: Int? = nil, containing text: String? = nil,
                    _ action: Action) {
            var rule = step.rawValue
            if let connection { rule += "@\(connection)" }
            if let message { rule += "#\(message)" }
            if let text { rule += "~\(text)" }
            switch action {
            case .reply(let reply): rule += "=" + reply.replacingOccurrences(of: "\n", with: "\\n")
            case .silence: rule += "=silence"
            case .drop: rule += "=drop"
            case .pause(let seconds): rule += "=pause:\(seconds)"
            }
            argument = rule
        }
    }

    /// One line of the server's log.
    public struct Event: Decodable, Sendable {
        /// connect, command, auth, reply, message, silence, pause, ignored, drop or close.
        public let event: String
        public let connection: Int
        /// The step a command, reply, silence or drop belongs to.
        public let step: String?
        /// The command as the client sent it.
        public let line: String?
        public let reply: String?
        /// The mail transaction a command or message belongs to.
        public let message: Int?
        /// A message's data, without the final dot.
        public let data: String?
        /// Whether a message or a login was accepted.
        public let accepted: Bool?
        public let user: String?
        public let password: String?
    }

    /// The port the server listens on.
    public let port: Int
    private let process: Process
    private let scratch = ScratchDirectory()
    private let directory: String

    /// Starts the server; throws when it does not start (with what it printed).
    public init(_ rules: [Rule] = [], credentials: (user: String, password: String)? = nil,
                lifetime: Double = 60) throws {
        directory = try scratch.folder()
        var arguments = [Self.script, "--log", directory + "/log.jsonl", "--lifetime", String(lifetime)]
        if let credentials { arguments += ["--auth", "\(credentials.user):\(credentials.password)"] }
        for rule in rules { arguments += ["--on", rule.argument] }

        (process, port) = try PortPrintingServer.start(arguments, directory: directory, name: "scripts/faulty-smtp")
    }

    deinit {
        stop()
    }

    /// scripts/faulty-smtp in this repository.
    static let script = TestEnvironment.root.appendingPathComponent("scripts/faulty-smtp").path

    /// The smtp:// URL of this server, with `userInfo` ("user:pass@") and `query` ("?timeout=1").
    public func url(userInfo: String = "", query: String = "") -> String {
        "smtp://\(userInfo)127.0.0.1:\(port)\(query)"
    }

    /// Stops the server (it also stops by itself at the end of its lifetime).
    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Everything logged so far. The server logs before it answers, so whatever led to an answer
    /// the client got is there.
    public var events: [Event] {
        let text = (try? String(contentsOfFile: directory + "/log.jsonl", encoding: .utf8)) ?? ""
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(Event.self, from: Data($0.utf8)) }
    }

    /// How many connections clients opened.
    public var connectionCount: Int {
        events.filter { $0.event == "connect" }.count
    }

    /// The commands clients sent, in order (the lines of an AUTH exchange after the first excepted).
    public var commands: [String] {
        events.compactMap { $0.event == "command" ? $0.line : nil }
    }

    /// The data of every message the server accepted.
    public var acceptedMessages: [String] {
        events.compactMap { $0.event == "message" && $0.accepted == true ? $0.data : nil }
    }

    /// The (user, password) of every login attempt.
    public var logins: [(user: String, password: String)] {
        events.compactMap { event in
            guard event.event == "auth", let user = event.user, let password = event.password else { return nil }
            return (user, password)
        }
    }
}

/// A test server script run with Python that prints the port it listens on as its first line of
/// output (scripts/faulty-smtp, scripts/faulty-http): started, its port read, its stderr kept in
/// `directory`.
enum PortPrintingServer {
    static func start(_ arguments: [String], directory: String, name: String) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Python.path)
        process.arguments = arguments
        let output = Pipe()
        let errorsPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()

        var firstLine = Data()
        while !firstLine.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            firstLine += chunk
        }
        guard let port = Int(String(decoding: firstLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.waitUntilExit()
            let errors = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
            throw TestSetupError("\(name) did not start (exit \(process.terminationStatus)): \(errors)")
        }
        return (process, port)
    }
}
