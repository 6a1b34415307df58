import Foundation
import HummingbirdBcrypt
import PostgresClient

/// What a staff account may do in the console: `admin` everything, `campus` preview, apply and undo
/// the rows of its own campuses, `viewer` read.
public enum StaffRole: String, Sendable, Encodable, CaseIterable {
    case admin, campus, viewer
}

/// One account of the staff console.
public struct StaffAccount: Sendable, Encodable, Equatable {
    public let id: Int
    public let email: String
    public let role: StaffRole
    /// The campus codes a `campus` account works on (empty for the others).
    public let campuses: [String]
    public let hasPassword: Bool

    /// How a run records who started it from the console.
    public var runUser: String { "console:" + email }
}

/// The console's accounts, as `crubatch staff` manages them. A password is kept only as a bcrypt hash;
/// a new password ends the account's sessions.
public struct StaffAccounts {
    /// bcrypt's work factor: 2^11 rounds, about a tenth of a second a guess on this kind of machine.
    static let cost: UInt8 = 11
    /// Fewer letters than this is refused as a password.
    public static let minimumPasswordLength = 10

    let connection: PostgresConnection

    public init(connection: PostgresConnection) throws {
        try Migrator(connection: connection).requireCurrent()
        self.connection = connection
    }

    /// For the console's requests, whose server checked the schema once when it started.
    init(checkedAlready connection: PostgresConnection) {
        self.connection = connection
    }

    /// Adds an account; `campuses` are campus codes, required for a `campus` account and refused for the others.
    @discardableResult
    public func add(email: String, role: StaffRole, campuses: [String], password: String?) throws -> StaffAccount {
        let email = try Self.normalized(email)
        if role == .campus, campuses.isEmpty {
            throw CruBatchError.usage("a campus account needs at least one --campus CODE")
        }
        if role != .campus, !campuses.isEmpty {
            throw CruBatchError.usage("only a campus account has campuses; \(role.rawValue) sees every campus")
        }
        let hash = try password.map(Self.hash)
        return try connection.transaction {
            let ids = try campusIDs(campuses)
            let inserted = try connection.query("""
                insert into staff_accounts (email, role, password_hash) values (\(email), \(role.rawValue), \(hash))
                on conflict do nothing returning id
                """).rows
            guard let row = inserted.first else { throw CruBatchError.refused("\(email) has an account already") }
            let id = try row.decode(Int.self, 0)
            try connection.execute("""
                insert into staff_account_campuses (account_id, campus_id) select \(id), unnest(\(ids)::bigint[])
                """)
            return StaffAccount(id: id, email: email, role: role, campuses: campuses.map { $0.lowercased() }.sorted(),
                                hasPassword: hash != nil)
        }
    }

    /// Every account, by email.
    public func list() throws -> [StaffAccount] {
        try accounts(where: "true")
    }

    /// The account of `email`, if there is one.
    public func account(_ email: String) throws -> StaffAccount? {
        try accounts(where: "a.email = \(email.lowercased())").first
    }

    /// The account of `id`, if there is one.
    func account(id: Int) throws -> StaffAccount? {
        try accounts(where: "a.id = \(id)").first
    }

    /// Removes an account and its sessions.
    public func remove(email: String) throws {
        let removed = try connection.query("delete from staff_accounts where email = \(email.lowercased()) returning id").rows
        if removed.isEmpty { throw CruBatchError.refused("\(email.lowercased()) has no account") }
    }

    /// Sets an account's password and ends its sessions.
    public func setPassword(email: String, password: String) throws {
        let hash = try Self.hash(password)
        try connection.transaction {
            let updated = try connection.query("""
                update staff_accounts set password_hash = \(hash) where email = \(email.lowercased()) returning id
                """).rows
            guard let row = updated.first else { throw CruBatchError.refused("\(email.lowercased()) has no account") }
            try connection.execute("delete from staff_sessions where account_id = \(try row.decode(Int.self, 0))")
        }
    }

    private func accounts(where condition: PostgresQuery) throws -> [StaffAccount] {
        try connection.query("select \(Self.columns) from staff_accounts a where \(condition) order by a.email").rows.map { row in
            try Self.account(row, at: 0)
        }
    }

    /// The columns `account(_:at:)` reads, over `staff_accounts a`.
    static let columns: PostgresQuery = """
        a.id, a.email, a.role, a.password_hash is not null,
        coalesce(array_to_string(array(select c.code from staff_account_campuses ac join campuses c on c.id = ac.campus_id
                                       where ac.account_id = a.id order by c.code), ','), '')
        """

    /// The account of `columns`, read from `row` starting at column `first`.
    static func account(_ row: PostgresRow, at first: Int) throws -> StaffAccount {
        let campuses = try row.decode(String.self, first + 4)
        return StaffAccount(id: try row.decode(Int.self, first), email: try row.decode(String.self, first + 1),
                            role: StaffRole(rawValue: try row.decode(String.self, first + 2)) ?? .viewer,
                            campuses: campuses.isEmpty ? [] : campuses.split(separator: ",").map(String.init),
                            hasPassword: try row.decode(Bool.self, first + 3))
    }

    private func campusIDs(_ codes: [String]) throws -> [Int] {
        try codes.map { code in
            guard let id = try connection.query("select id from campuses where code = \(code.lowercased())").rows.first
            else { throw CruBatchError.refused("no campus has the code \(code.lowercased()) (see campuses.csv)") }
            return try id.decode(Int.self, 0)
        }
    }

    static func normalized(_ email: String) throws -> String {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !email.contains(" ") else {
            throw CruBatchError.usage("\(email) is not an email address")
        }
        return email
    }

    static func hash(_ password: String) throws -> String {
        guard password.count >= minimumPasswordLength else {
            throw CruBatchError.usage("a password needs at least \(minimumPasswordLength) characters")
        }
        return Bcrypt.hash(password, cost: cost)
    }
}

/// `crubatch staff list`: the accounts, their roles and campuses.
public struct StaffAccountList: CommandReport {
    public let accounts: [StaffAccount]

    public init(accounts: [StaffAccount]) { self.accounts = accounts }

    public var text: String {
        var table = TextTable(headers: ["email", "role", "campuses", "password"], alignments: [.left, .left, .left, .left])
        for account in accounts {
            table.append([account.email, account.role.rawValue, account.campuses.joined(separator: ","),
                          account.hasPassword ? "set" : "none"])
        }
        return table.text
    }
}

/// What `crubatch staff add`, `remove` or `password` did to one account.
public struct StaffAccountChange: CommandReport {
    public let action: String
    public let email: String

    public init(action: String, email: String) {
        self.action = action
        self.email = email
    }

    public var text: String { "\(action) \(email)" }
}
