import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny scripted SMTP server on 127.0.0.1 (a random port), for the answers the real sink never
/// gives: refused recipients, AUTH, silence. It serves connections one after another on a thread
/// of its own and records what the client said.
final class FakeSMTPServer: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Accept everything (after AUTH PLAIN with `credentials`, when given).
        case accept
        /// Answer `RCPT TO` for any address containing "reject" with this reply, e.g. "550 5.1.1 no such user".
        case rejectRecipients(reply: String)
        /// Accept the connection and never say anything.
        case silent
    }

    let port: Int
    private let behaviour: Behaviour
    private let credentials: (user: String, password: String)?
    private let listener: Int32
    private let lock = NSLock()
    private var commandLog: [String] = []
    private var authLog: [(String, String)] = []
    private var messageLog: [String] = []
    private var stopped = false

    /// What the client sent, one command per element (DATA contents are in `messages`).
    var commands: [String] { lock.withLock { commandLog } }
    /// The (user, password) pairs the client authenticated with, decoded from AUTH PLAIN.
    var authentications: [(String, String)] { lock.withLock { authLog } }
    /// The DATA of each message received.
    var messages: [String] { lock.withLock { messageLog } }

    init(_ behaviour: Behaviour, credentials: (user: String, password: String)? = nil) throws {
        self.behaviour = behaviour
        self.credentials = credentials
        #if canImport(Glibc)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0
                    && listen(listener, 8) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in self.serve() }
        thread.start()
    }

    /// The smtp:// URL of this server, with `userInfo` ("user:pass@") and `query` ("?tls=none").
    func url(userInfo: String = "", query: String = "") -> String {
        "smtp://\(userInfo)127.0.0.1:\(port)\(query)"
    }

    /// Stops accepting connections.
    func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        if !wasStopped {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    deinit {
        stop()
    }

    private func serve() {
        while !lock.withLock({ stopped }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let session = Session(connection)
            handle(session)
            close(connection)
        }
    }

    private func handle(_ session: Session) {
        if case .silent = behaviour {
            while session.readLine() != nil {} // until the client gives up
            return
        }
        session.send("220 fake.test ESMTP ready")
        while let line = session.readLine() {
            lock.withLock { commandLog.append(line) }
            let upper = line.uppercased()
            if upper.hasPrefix("EHLO") {
                session.send(credentials == nil ? "250-fake.test\r\n250 8BITMIME"
                                                 : "250-fake.test\r\n250-AUTH PLAIN\r\n250 8BITMIME")
            } else if upper.hasPrefix("HELO") {
                session.send("250 fake.test")
            } else if upper.hasPrefix("AUTH PLAIN") {
                var response = String(line.dropFirst("AUTH PLAIN".count)).trimmingCharacters(in: .whitespaces)
                if response.isEmpty {
                    session.send("334 ")
                    response = session.readLine() ?? ""
                }
                let parts = Data(base64Encoded: response).map {
                    String(decoding: $0, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false)
                } ?? []
                let user = parts.count == 3 ? String(parts[1]) : ""
                let password = parts.count == 3 ? String(parts[2]) : ""
                lock.withLock { authLog.append((user, password)) }
                if let credentials, credentials.user == user, credentials.password == password {
                    session.send("235 2.7.0 Authentication successful")
                } else {
                    session.send("535 5.7.8 Authentication credentials invalid")
                }
            } else if upper.hasPrefix("MAIL FROM:") {
                session.send("250 2.1.0 OK")
            } else if upper.hasPrefix("RCPT TO:") {
                if case .rejectRecipients(let reply) = behaviour, line.lowercased().contains("reject") {
                    session.send(reply)
                } else {
                    session.send("250 2.1.5 OK")
                }
            } else if upper == "DATA" {
                session.send("354 End data with <CR><LF>.<CR><LF>")
                var data: [String] = []
                while let dataLine = session.readLine(), dataLine != "." {
                    data.append(dataLine.hasPrefix(".") ? String(dataLine.dropFirst()) : dataLine)
                }
                lock.withLock { messageLog.append(data.joined(separator: "\r\n")) }
                session.send("250 2.0.0 Queued")
            } else if upper == "RSET" || upper == "NOOP" {
                session.send("250 2.0.0 OK")
            } else if upper == "QUIT" {
                session.send("221 2.0.0 Bye")
                return
            } else {
                session.send("502 5.5.2 Command not recognized")
            }
        }
    }

    /// One client connection: CRLF lines in and out.
    private final class Session {
        let socket: Int32
        var buffer: [UInt8] = []

        init(_ socket: Int32) {
            self.socket = socket
        }

        func send(_ reply: String) {
            let bytes = Array((reply + "\r\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                sent += count
            }
        }

        func readLine() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    var line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    if line.last == 13 { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
                if count <= 0 { return nil }
                buffer += chunk[..<count]
            }
        }
    }
}
