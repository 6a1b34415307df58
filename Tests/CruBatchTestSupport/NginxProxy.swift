import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx started for a test with the repository's example site for the console
/// (scripts/schedule/crubatch-console.nginx.conf) in front of a console: the example's ports,
/// certificate paths and upstream are rewritten to the test's, every other line is as shipped.
public final class NginxProxy {
    /// The plain HTTP port (the example's 80), which only redirects.
    public let httpPort: Int
    /// The HTTPS port (the example's 443).
    public let httpsPort: Int
    /// The certificate nginx presents, to pass to curl with `--cacert`.
    public let certificate: SelfSignedCertificate
    private let process: Process
    private let directory: String
    private let scratch = ScratchDirectory()

    /// The example site, as the repository ships it.
    public static let example = TestEnvironment.root.appendingPathComponent("scripts/schedule/crubatch-console.nginx.conf").path

    /// Starts nginx proxying to `upstream` ("127.0.0.1:PORT") and waits until both ports answer;
    /// tries new ports when another process took one first.
    public init(upstream: String) throws {
        directory = try scratch.folder()
        certificate = try SelfSignedCertificate(in: directory)
        var attempt = 0
        while true {
            attempt += 1
            let ports = try Self.freePorts(2)
            let process = try Self.start(directory: directory, certificate: certificate, upstream: upstream, ports: ports)
            let listening = waitUntil(timeout: 15) { !process.isRunning || ports.allSatisfy(Self.answers) }
            if listening && process.isRunning {
                (self.process, httpPort, httpsPort) = (process, ports[0], ports[1])
                return
            }
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
            Self.stop(process, directory: directory)
            guard attempt < 3, log.contains("Address already in use") else { throw TestSetupError("nginx did not start: \(log)") }
        }
    }

    /// Writes the site and a main configuration for `ports` and starts nginx on them, at most ten
    /// minutes (`timeout`), so that a test runner that dies leaves no nginx behind for long.
    private static func start(directory: String, certificate: SelfSignedCertificate, upstream: String, ports: [Int]) throws -> Process {
        var site = try String(contentsOfFile: example, encoding: .utf8)
        for (shipped, local) in [("listen 80;", "listen 127.0.0.1:\(ports[0]);"),
                                 ("listen 443 ssl;", "listen 127.0.0.1:\(ports[1]) ssl;"),
                                 ("/etc/letsencrypt/live/console.example.org/fullchain.pem", certificate.certificate),
                                 ("/etc/letsencrypt/live/console.example.org/privkey.pem", certificate.key),
                                 ("proxy_pass http://127.0.0.1:8080;", "proxy_pass http://\(upstream);")] {
            guard site.components(separatedBy: shipped).count == 2 else {
                throw TestSetupError("the nginx example no longer has exactly one \(shipped)")
            }
            site = site.replacingOccurrences(of: shipped, with: local)
        }
        try site.write(toFile: directory + "/site.conf", atomically: true, encoding: .utf8)
        // What /etc/nginx/nginx.conf gives a site, kept to this folder: one process, no daemon, logs and
        // temporary files here.
        let temporaryPaths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "\($0)_temp_path \(directory)/\($0);" }.joined(separator: " ")
        try """
            daemon off; master_process off; pid \(directory)/nginx.pid; error_log \(directory)/error.log;
            events { worker_connections 64; }
            http { access_log off; \(temporaryPaths) include \(directory)/site.conf; }

            """.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        for stale in ["error.log", "nginx.pid"] { try? FileManager.default.removeItem(atPath: directory + "/" + stale) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--signal", "KILL", "600", "/usr/sbin/nginx", "-p", directory, "-e", directory + "/error.log",
                             "-c", directory + "/nginx.conf"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    deinit { Self.stop(process, directory: directory) }

    /// SIGKILL to nginx itself (its pid file): the test runner blocks SIGTERM, and nginx without a
    /// master process keeps the mask it was started with, so it would never see a terminate().
    /// `timeout` exits with it.
    private static func stop(_ process: Process, directory: String) {
        let pid = (try? String(contentsOfFile: directory + "/nginx.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if process.isRunning { kill(pid ?? process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// `https://127.0.0.1:PORT`, the console as a browser reaches it through nginx.
    public var httpsBase: String { "https://127.0.0.1:\(httpsPort)" }
    /// `http://127.0.0.1:PORT`.
    public var httpBase: String { "http://127.0.0.1:\(httpPort)" }

    /// `count` different TCP ports on 127.0.0.1 nobody listens on now: the kernel's picks for sockets
    /// bound to port 0, all held until all are picked.
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw TestSetupError("no socket: errno \(errno)") }
            sockets.append(socket)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
                }
            }
            guard bound else { throw TestSetupError("no free port: errno \(errno)") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// Whether something accepts a connection on 127.0.0.1:`port`.
    static func answers(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A key and a certificate for 127.0.0.1 and localhost, valid for a day, made by openssl for a test's
/// HTTPS server.
public struct SelfSignedCertificate: Sendable {
    /// The certificate (PEM), also the CA bundle a client trusts it by.
    public let certificate: String
    /// The private key (PEM).
    public let key: String

    /// Writes `cert.pem` and `key.pem` into `directory`.
    public init(in directory: String) throws {
        certificate = directory + "/cert.pem"
        key = directory + "/key.pem"
        let openssl = try CommandResult.run(
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], executable: "/usr/bin/openssl")
        guard openssl.status == 0 else { throw TestSetupError("openssl could not make a certificate: \(openssl.stderr)") }
    }
}
