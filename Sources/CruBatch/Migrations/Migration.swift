import FileOutput
import CSVStream
import PostgresClient

/// One versioned schema change, compiled into the binary so a deployed `crubatch` carries its schema.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String

    /// SHA-256 of the SQL: an applied migration whose text changed is refused.
    public var checksum: String {
        let hasher = SHA256Hasher()
        hasher.update(Array(sql.utf8))
        return hasher.finalizeHex()
    }

    /// Every migration, in order.
    public static let all: [Migration] = [
        dataModel, outbox, codeChecks, capacityAndOutbox, lifecycle, terms, termsChangeLog, messageKinds, rides,
        pendingNotifications, rideMessages, leaveAfterSentJoin, joinMessagesPerStatement, seatCheckOnIndex,
        nightlyFolders, sources, attendance, legacyIDs,
        peopleDuplicates, triggerLookupsRobustToStatistics, membershipChecksPerStatement, pairingChecksPerStatement,
        insertedRowsAsRows, outboxReferencesPerStatement, dedupeKeysInByteOrder, referenceChecksInOnePass,
        newPairingsToldDirectly, outboxIndexesInUse, newMembershipsToldDirectly, sourcesTablesState, peopleMatchEvidence,
        staffAccounts, phoneCheckWithoutBoundedRepeat, updatedRowsAsRows, roomForUpdatesInPeople,
    ]
}

/// A migration as recorded in the database (or not yet applied).
public struct MigrationStatus: Sendable, Equatable, Encodable {
    public let version: Int
    public let name: String
    public let appliedAt: String?
    public let checksumMatches: Bool

    /// `0001  data model   applied 2026-11-22 02:18:15 UTC`: the cells of `migrate --status`.
    var cells: [String] {
        let number = String(version)
        let state = appliedAt.map { "applied \($0)" } ?? "pending"
        return [String(repeating: "0", count: max(0, 4 - number.count)) + number, name,
                state + (checksumMatches ? "" : "  CHANGED since applied")]
    }

}

/// What `migrate` did (the migrations it applied) or, with `--status`, where each one stands.
public struct MigrateReport: Sendable, CommandReport {
    public struct Applied: Sendable, Encodable {
        public let version: Int
        public let name: String
    }

    public let applied: [Applied]
    public let migrations: [MigrationStatus]
    /// `--status`: the text lists every migration instead of saying what was applied.
    let listing: Bool

    private enum CodingKeys: String, CodingKey {
        case applied, migrations
    }

    public init(applied: [Migration], migrations: [MigrationStatus], listing: Bool) {
        self.applied = applied.map { Applied(version: $0.version, name: $0.name) }
        self.migrations = migrations
        self.listing = listing
    }

    /// With `--status`, the table of migrations; else what was applied, or that nothing was.
    public var text: String {
        if listing {
            var table = TextTable(headers: ["no.", "migration", "state"], alignments: [.left, .left, .left])
            migrations.forEach { table.append($0.cells) }
            return table.text
        }
        if applied.isEmpty { return "schema is up to date (\(migrations.count) migrations applied)" }
        return applied.map { "applied \($0.version): \($0.name)" }.joined(separator: "\n")
    }
}

/// Applies migrations in one transaction under an advisory lock and records them in `schema_migrations`.
public struct Migrator {
    static let lockKey: Int64 = 0x6372_7562_0001

    let connection: PostgresConnection
    let migrations: [Migration]

    public init(connection: PostgresConnection, migrations: [Migration] = Migration.all) {
        self.connection = connection
        self.migrations = migrations
    }

    /// Applies what is pending; returns the migrations applied (none the second time).
    public func migrate() throws -> [Migration] {
        try connection.transaction {
            try connection.query("select pg_advisory_xact_lock(\(Self.lockKey))")
            try ensureTable()
            let applied = try appliedChecksums()
            try verify(applied)
            let pending = migrations.filter { applied[$0.version] == nil }
            for migration in pending {
                do {
                    try connection.script(migration.sql)
                } catch let error as PostgresError where error.sqlState?.hasPrefix("23") == true {
                    // The schema change is fine; rows already in the database break its new rule.
                    throw CruBatchError.migrationBlocked(version: migration.version, name: migration.name,
                                                         reason: [error.message, error.detail].compactMap { $0 }.joined(separator: ": "))
                }
                try connection.query("""
                    insert into schema_migrations (version, name, checksum)
                    values (\(migration.version), \(migration.name), \(migration.checksum))
                    """)
            }
            // What the migrations (or a change made by hand) did to a logged table, its copies of
            // inserted and updated rows follow; nothing when they are in line.
            try connection.execute("""
                do $$ begin
                    if to_regproc('sync_run_copies') is not null then perform sync_run_copies(); end if;
                end $$
                """)
            return pending
        }
    }

    /// Every known migration with whether and when it was applied.
    public func status() throws -> [MigrationStatus] {
        let exists = try connection.query("select to_regclass('schema_migrations') is not null").scalar(Bool.self)
        var applied: [Int: (String, String)] = [:]
        if exists {
            let result = try connection.query(
                "select version, checksum, to_char(applied_at, 'YYYY-MM-DD HH24:MI:SS TZ') from schema_migrations")
            for row in result.rows {
                applied[try row.decode(Int.self, 0)] = (try row.decode(String.self, 1), try row.decode(String.self, 2))
            }
        }
        return migrations.map { migration in
            let record = applied[migration.version]
            return MigrationStatus(version: migration.version, name: migration.name, appliedAt: record?.1,
                                   checksumMatches: record.map { $0.0 == migration.checksum } ?? true)
        }
    }

    /// Fails unless every migration has been applied (commands other than `migrate` need the schema).
    public func requireCurrent() throws {
        let pending = try status().filter { $0.appliedAt == nil }
        if !pending.isEmpty {
            throw CruBatchError.schemaOutOfDate(pending: pending.map(\.version))
        }
    }

    private func ensureTable() throws {
        try connection.execute("""
            create table if not exists schema_migrations (
                version integer primary key,
                name text not null,
                checksum text not null,
                applied_at timestamptz not null default now()
            )
            """)
    }

    private func appliedChecksums() throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try connection.query("select version, checksum from schema_migrations").rows {
            applied[try row.decode(Int.self, 0)] = try row.decode(String.self, 1)
        }
        return applied
    }

    private func verify(_ applied: [Int: String]) throws {
        for migration in migrations {
            if let checksum = applied[migration.version], checksum != migration.checksum {
                throw CruBatchError.migrationChanged(version: migration.version, name: migration.name)
            }
        }
    }
}
