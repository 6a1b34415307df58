import Foundation
import FileOutput
import HummingbirdBcrypt
import PostgresClient

/// A signed-in console session: whose it is and the token its forms must carry.
public struct StaffSession: Sendable {
    public let account: StaffAccount
    /// Every state-changing request carries this in its form field `csrf`.
    public let csrf: String
}

/// How a sign-in ended.
public enum StaffSignIn: Sendable {
    /// A new session: `token` goes into the cookie, and only its SHA-256 into the database.
    case signedIn(token: String, session: StaffSession)
    /// The email and password do not match an account (which of them is wrong is not said).
    case refused
    /// Too many failures lately for this account or this address: try again after `seconds`.
    case slowed(seconds: Int)
}

/// The console's sessions, kept in PostgreSQL so that signing out, a new password or a removed
/// account ends them at once, and guessing is slowed per account and per address.
public struct StaffSessions {
    /// Failures within this window count towards slowing down.
    static let failureWindowMinutes = 15
    /// Failures allowed at full speed; each one after doubles the wait, from two seconds.
    static let freeFailures = 4

    let connection: PostgresConnection
    /// A session unused this long is over.
    let idleMinutes: Int

    /// Sessions on `connection`, whose schema the console checked when it started.
    public init(connection: PostgresConnection, idleMinutes: Int) {
        self.connection = connection
        self.idleMinutes = idleMinutes
    }

    /// Checks `password` for `email` from `address`; on success a new session with a fresh token.
    public func signIn(email: String, password: String, address: String) throws -> StaffSignIn {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let window: PostgresQuery = "failed_at > now() - \(Self.failureWindowMinutes) * interval '1 minute'"
        let wait = try connection.query("""
            select coalesce(max(extract(epoch from last + least(interval '15 minutes', interval '1 second' * 2 ^ (n - \(Self.freeFailures)))
                                         - now())), 0)::float8
            from (select count(*) as n, max(failed_at) as last from staff_sign_in_failures where \(window) and email = \(email)
                  union all
                  select count(*), max(failed_at) from staff_sign_in_failures where \(window) and address = \(address)) f
            where n > \(Self.freeFailures)
            """).scalar(Double.self)
        if wait > 0 { return .slowed(seconds: Int(wait.rounded(.up))) }
        let stored = try connection.query("select id, password_hash from staff_accounts where email = \(email)").rows.first
        let account = try stored.map { try $0.decode((Int, String?).self) }
        // An unknown email costs a hash check too, so the time taken does not tell which accounts exist.
        let matches = Bcrypt.verify(password, hash: account?.1 ?? Self.unknownAccountHash)
        guard let (id, hash) = account, hash != nil, matches else {
            try connection.execute("""
                insert into staff_sign_in_failures (email, address) values (\(email), \(address));
                """)
            try connection.execute("delete from staff_sign_in_failures where failed_at < now() - interval '1 day'")
            return .refused
        }
        let token = Self.randomHex(), csrf = Self.randomHex()
        try connection.transaction {
            try connection.execute("delete from staff_sign_in_failures where email = \(email)")
            try connection.execute("""
                insert into staff_sessions (token_sha256, account_id, csrf, address)
                values (\(Self.sha256(token)), \(id), \(csrf), \(address))
                """)
        }
        guard let signedIn = try StaffAccounts(checkedAlready: connection).account(id: id) else { return .refused }
        return .signedIn(token: token, session: StaffSession(account: signedIn, csrf: csrf))
    }

    /// The live session of a cookie's `token`, if it is one and has not been idle too long. Its last
    /// use is written at most once a minute: a page view is then one read.
    public func session(token: String) throws -> StaffSession? {
        guard token.count == 64 else { return nil }
        let hash = Self.sha256(token)
        guard let row = try connection.query("""
            select s.csrf, s.last_seen_at < now() - interval '1 minute', \(StaffAccounts.columns)
            from staff_sessions s join staff_accounts a on a.id = s.account_id
            where s.token_sha256 = \(hash) and s.last_seen_at > now() - \(idleMinutes) * interval '1 minute'
            """).rows.first else { return nil }
        if try row.decode(Bool.self, 1) {
            try connection.execute("update staff_sessions set last_seen_at = now() where token_sha256 = \(hash)")
        }
        return StaffSession(account: try StaffAccounts.account(row, at: 2), csrf: try row.decode(String.self, 0))
    }

    /// Ends the session of `token`.
    public func signOut(token: String) throws {
        try connection.execute("delete from staff_sessions where token_sha256 = \(Self.sha256(token))")
    }

    /// 32 random bytes as hex, from the system's cryptographic generator.
    public static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    static func sha256(_ text: String) -> String {
        let hasher = SHA256Hasher()
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }

    /// A hash no password matches, checked when the email has no account.
    private static let unknownAccountHash = Bcrypt.hash(randomHex(), cost: StaffAccounts.cost)
}
