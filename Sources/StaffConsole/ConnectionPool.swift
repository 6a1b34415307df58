import CruBatch
import NIOPosix
import PostgresClient
import Synchronization

/// A few database connections the console's requests borrow one at a time. libpq blocks, so every
/// use runs on NIO's thread pool, never on the event loop.
final class ConnectionPool: Sendable {
    /// A connection lent to one request at a time; the pool's lock guards who holds it.
    private final class Lent: @unchecked Sendable {
        let connection: PostgresConnection
        /// Whom the connection's runs are recorded as started by now (`RunStarter`).
        var startedBy: String?
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    private let url: String
    private let idle = Mutex<[Lent]>([])
    /// Idle connections kept for the next request; more are opened under load and closed after.
    private let keep: Int

    init(url: String, keep: Int = 4) {
        self.url = url
        self.keep = keep
    }

    /// Runs `work` with a connection, off the event loop; the runs it makes are recorded as started by
    /// `account`. A connection whose work failed is closed, not returned: it may be in a broken
    /// transaction.
    func withConnection<T: Sendable>(as account: StaffAccount? = nil,
                                     _ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive { [self] in
            let lent = try idle.withLock { $0.popLast() } ?? Lent(PostgresConnection(url, applicationName: "crubatch serve"))
            if lent.startedBy != account?.runUser {
                try RunStarter.set(account?.runUser, on: lent.connection)
                lent.startedBy = account?.runUser
            }
            let result = try work(lent.connection)
            idle.withLock { connections in
                if connections.count < keep { connections.append(lent) }
            }
            return result
        }
    }
}
