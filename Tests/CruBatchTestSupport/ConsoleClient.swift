import Foundation

/// A `crubatch serve` started for a test on a free port, and a browser-like client for it: curl with
/// a cookie jar of its own, following no redirects, so each test sees every status and header.
public final class ConsoleClient {
    /// One HTTP exchange: the status, the headers (names in lower case) and the body.
    public struct Reply {
        public let status: Int
        public let headers: [String: [String]]
        public let body: String

        public func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
    }

    public let server: BackgroundCommand
    /// `http://127.0.0.1:PORT`.
    public let base: String
    private let scratch = ScratchDirectory()
    private let jar: String
    /// curl options every request of this client gives (a CA bundle to trust, say).
    private let curlOptions: [String]
    /// The client that started the server, kept alive by every other client of it: the server stops
    /// when the last of them goes.
    private let owner: ConsoleClient?

    /// Starts `crubatch serve` on `database` and waits until it listens.
    public init(serving database: TestDatabase, arguments: [String] = []) throws {
        let server = try database.start(["serve", "--listen", "127.0.0.1:0"] + arguments)
        self.server = server
        var address: String?
        _ = try waitUntil(timeout: 30) {
            address = try server.stdoutSoFar().split(separator: "\n")
                .first { $0.hasPrefix("crubatch console listening on ") }
                .map { String($0.dropFirst("crubatch console listening on ".count)) }
            return address != nil || !server.isRunning
        }
        guard let address else {
            throw ConsoleClientError.notListening(try server.stderrSoFar())
        }
        base = address
        jar = try scratch.folder() + "/cookies"
        curlOptions = []
        owner = nil
    }

    /// A second client of the same server with a cookie jar of its own: another browser.
    public init(sameServerAs other: ConsoleClient) throws {
        server = other.server
        base = other.base
        jar = try scratch.folder() + "/cookies"
        curlOptions = other.curlOptions
        owner = other.owner ?? other
    }

    /// A browser reaching `other`'s server at `base` instead (through a proxy), with a cookie jar of
    /// its own and `curlOptions` on every request.
    public init(at base: String, sameServerAs other: ConsoleClient, curlOptions: [String]) throws {
        server = other.server
        self.base = base
        jar = try scratch.folder() + "/cookies"
        self.curlOptions = curlOptions
        owner = other.owner ?? other
    }

    /// `base` without its scheme: `host:port`.
    public var serverAddress: String { String(base.drop { $0 != "/" }.dropFirst(2)) }

    deinit {
        if owner == nil { server.terminate() }
    }

    /// GET `path`.
    public func get(_ path: String) throws -> Reply { try request([], path) }

    /// POST `fields` url-encoded to `path`, with `headers` ("Name: value") added.
    public func post(_ path: String, _ fields: [(String, String)], headers: [String] = []) throws -> Reply {
        var arguments = ["--request", "POST"] + headers.flatMap { ["--header", $0] }
        if fields.isEmpty { arguments += ["--data", ""] }
        for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        return try request(arguments, path)
    }

    /// POST a multipart form to `path`, as a browser's file upload: `fields`, then the file at `file`.
    public func upload(_ path: String, fields: [(String, String)], file: String) throws -> Reply {
        var arguments: [String] = []
        for (name, value) in fields { arguments += ["--form-string", "\(name)=\(value)"] }
        return try request(arguments + ["--form", "file=@\(file)"], path)
    }

    /// GET `path` into the file `output`; the reply's body is empty.
    public func download(_ path: String, to output: String) throws -> Reply {
        try request(["--output", output], path)
    }

    /// The value of a cookie in this client's jar.
    public func cookie(_ name: String) throws -> String? { jarLine(name).map { String($0[6]) } }

    /// Whether the jar keeps the cookie `name` for HTTPS only (its Secure flag), as a browser does.
    public func cookieIsSecure(_ name: String) -> Bool { jarLine(name)?[3] == "TRUE" }

    /// The jar's line for the cookie `name`, in curl's seven tab-separated fields.
    private func jarLine(_ name: String) -> [Substring]? {
        let lines = (try? String(contentsOfFile: jar, encoding: .utf8))?.split(separator: "\n") ?? []
        return lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false) }.first { $0.count == 7 && $0[5] == name }
    }

    /// `crubatch staff add EMAIL OPTIONS` on `database` with `password` piped in, as a script gives it.
    public static func addAccount(_ database: TestDatabase, _ email: String, password: String,
                                  _ options: [String]) throws -> CommandResult {
        let command = ([TestEnvironment.binary, "staff", "add", email] + options).map { "'\($0)'" }.joined(separator: " ")
        return try CommandResult.run(["-c", "printf '%s\\n' \"$PASSWORD\" | \(command)"], executable: "/bin/sh",
                                     environment: ["DATABASE_URL": database.url, "PASSWORD": password])
    }

    /// The session's CSRF token, from a page every signed-in account may see.
    public func csrf() throws -> String { Self.csrf(in: try get("/runs").body) ?? "" }

    /// The value of the hidden `csrf` field of a page.
    public static func csrf(in page: String) -> String? {
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in through the login form as a browser does; the reply to the form's POST.
    @discardableResult
    public func signIn(_ email: String, _ password: String) throws -> Reply {
        let form = try get("/login")
        return try post("/login", [("csrf", Self.csrf(in: form.body) ?? ""), ("email", email), ("password", password)])
    }

    private func request(_ arguments: [String], _ path: String) throws -> Reply {
        let headers = try scratch.folder() + "/headers"
        let result = try CommandResult.run(["--silent", "--show-error", "--cookie", jar, "--cookie-jar", jar,
                                            "--dump-header", headers, "--max-time", "30"] + curlOptions + arguments + [base + path],
                                           executable: "/usr/bin/curl")
        guard result.status == 0 else { throw ConsoleClientError.curlFailed(result.stderr) }
        let lines = try String(contentsOfFile: headers, encoding: .utf8).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: [String]] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased(), default: []].append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Reply(status: status, headers: fields, body: result.stdout)
    }
}

/// Why a console client could not be used.
public enum ConsoleClientError: Error {
    case notListening(String)
    case curlFailed(String)
}
