import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sockets libcurl has open for one transport, so that a deadline can cut them off.
///
/// libcurl bounds every wait of a send by the transport's timeout but one: closing a connection,
/// it says QUIT and waits for the answer with a limit of its own (two minutes), even on a
/// connection that has just timed out. `run(within:_:)` shuts the sockets down when a call
/// overruns, which ends such a wait at once. libcurl still closes the sockets itself, through
/// `close(_:)`, under the same lock, so a late deadline never touches a descriptor number that was
/// closed and handed to someone else meanwhile.
final class SocketDeadline: @unchecked Sendable {
    private let lock = NSLock()
    private var sockets: Set<Int32> = []
    /// Bumped at the start and at the end of every `run`, so a deadline that fires late does nothing.
    private var generation: UInt64 = 0

    /// Takes note of a socket libcurl has just created.
    func register(_ socket: Int32) {
        lock.withLock { _ = sockets.insert(socket) }
    }

    /// Closes a socket for libcurl; returns what close(2) returned.
    func close(_ socket: Int32) -> Int32 {
        lock.withLock {
            sockets.remove(socket)
            return closeDescriptor(socket)
        }
    }

    /// Shuts every open socket down: a libcurl call waiting on one returns, and libcurl finds the
    /// connection dead, so it neither reuses it nor waits for an answer to QUIT on it.
    func cutOff() {
        lock.withLock { shutdownAll() }
    }

    /// Runs `body`, cutting the sockets off if it is still running after `seconds`.
    func run<Result>(within seconds: Double, _ body: () -> Result) -> Result {
        let armed = lock.withLock {
            generation &+= 1
            return generation
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.cutOff(ifStillRunning: armed)
        }
        defer { lock.withLock { generation &+= 1 } }
        return body()
    }

    private func cutOff(ifStillRunning armed: UInt64) {
        lock.withLock {
            if generation == armed { shutdownAll() }
        }
    }

    private func shutdownAll() {
        for socket in sockets {
            _ = shutdown(socket, Int32(SHUT_RDWR))
        }
    }
}

/// close(2), out of reach by its own name inside a type with a `close` method.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
