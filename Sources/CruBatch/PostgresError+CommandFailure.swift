import PostgresClient

extension PostgresError: CommandFailure {
    /// What a database failure means for the person running crubatch.
    enum Meaning {
        /// The server is down, unreachable, shutting down or out of resources: try later (69).
        case unavailable
        /// Another run holds what this one needs, or a deadlock was broken: retry (75).
        case temporary
        /// The server went away under an open connection (a failover to a standby, a restart), or the
        /// server reached is read-only now: what the run had not committed is rolled back, and the
        /// same command run again goes to the new primary (75).
        case failedOver
        /// crubatch's own SQL failed or its result did not decode: a bug (70).
        case bug
    }

    /// SQLSTATEs that mean "try again": serialization failure, deadlock, lock not available.
    static let temporaryStates: Set<String> = ["40001", "40P01", "55P03"]

    var meaning: Meaning {
        if primaryLost { return .failedOver }
        switch kind {
        case .connection: return .unavailable
        case .lockNotAvailable: return .temporary
        case .query, .copy:
            guard let sqlState else { return .unavailable }
            if Self.temporaryStates.contains(sqlState) { return .temporary }
            // Connection exceptions, operator intervention (shutdown), insufficient resources.
            if sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState.hasPrefix("53") { return .unavailable }
            return .bug
        case .decoding: return .bug
        }
    }

    public var exitStatus: ExitStatus {
        switch meaning {
        case .unavailable: .unavailable
        case .temporary, .failedOver: .temporaryFailure
        case .bug: .software
        }
    }

    public var errorCode: String {
        switch meaning {
        case .unavailable: "database-unavailable"
        case .temporary: "temporary-failure"
        case .failedOver: "database-failed-over"
        case .bug: "internal-error"
        }
    }

    public var commandMessage: String {
        switch meaning {
        case .unavailable: description
        case .temporary: "\(description); another run holds what this one needs, try again"
        case .failedOver:
            "\(description); the database failed over or restarted mid-run: what this run had not committed "
                + "was rolled back, so run it again"
        case .bug: "this is a bug in crubatch: \(description); please report it with the command you ran"
        }
    }
}
