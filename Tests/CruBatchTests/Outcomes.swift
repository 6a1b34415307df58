import Foundation

/// Results gathered from several threads: for the tests of sessions racing for the last seat.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Void, Error>] = []

    private func record(_ result: Result<Void, Error>) {
        lock.withLock { results.append(result) }
    }

    private var all: [Result<Void, Error>] { lock.withLock { results } }

    /// Runs `body` once per element of `inputs`, each on its own thread, all at once; returns each
    /// run's result, in the order they finished.
    static func race<Input: Sendable>(_ inputs: [Input], _ body: @escaping @Sendable (Input) throws -> Void)
        -> [Result<Void, Error>] {
        let outcomes = Outcomes()
        let done = DispatchGroup()
        for input in inputs {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                outcomes.record(Result { try body(input) })
            }
        }
        done.wait()
        return outcomes.all
    }
}
