import Foundation

/// scripts/faulty-http, started for one test: an HTTPS server on 127.0.0.1 with a certificate
/// made for it at start (its CA file is `caBundle`), serving files and misbehaving by path (slow,
/// silent, redirect loop, redirect to file://, endless body, any status, a sign-in page). It stops
/// when this object goes away, and by itself after `lifetime` seconds in any case.
public final class FaultyHTTPServer: @unchecked Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The self-signed certificate the server presents, to pass with `--cacert`.
    public let caBundle: String
    private let process: Process
    private let scratch = ScratchDirectory()
    private let directory: String
    private let tls: Bool
    /// The address it listens on.
    public let host: String

    /// Starts the server; `files` maps a URL path (`/students.csv`) to the file served there.
    public init(files: [String: String] = [:], tls: Bool = true, lifetime: Double = 60, host: String = "127.0.0.1") throws {
        directory = try scratch.folder()
        self.tls = tls
        self.host = host
        caBundle = directory + "/cert.pem"
        var arguments = [Self.script, "--log", directory + "/log.jsonl", "--lifetime", String(lifetime), "--listen", host]
        if tls {
            let certificate = try SelfSignedCertificate(in: directory)
            arguments += ["--cert", certificate.certificate, "--key", certificate.key]
        }
        for (path, file) in files.sorted(by: { $0.key < $1.key }) { arguments += ["--serve", "\(path)=\(file)"] }

        (process, port) = try PortPrintingServer.start(arguments, directory: directory, name: "scripts/faulty-http")
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// scripts/faulty-http in this repository.
    static let script = TestEnvironment.root.appendingPathComponent("scripts/faulty-http").path

    /// The URL of `path` on this server (`userInfo` such as "user:secret@" goes before the host).
    public func url(_ path: String, userInfo: String = "") -> String {
        "\(tls ? "https" : "http")://\(userInfo)\(host):\(port)\(path)"
    }

    /// One request the server received.
    public struct Request: Decodable, Sendable {
        public let path: String
        public let ifNoneMatch: String?
        public let ifModifiedSince: String?

        enum CodingKeys: String, CodingKey {
            case path, ifNoneMatch = "if_none_match", ifModifiedSince = "if_modified_since"
        }
    }

    /// Every request received so far, in order.
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: directory + "/log.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }
}
