import Foundation
import Synchronization

/// Where a load's time goes, for `import --timings`: the wall-clock time of each phase (reading
/// and checking rows in the client, sending them to staging, the database checks, the merge and its
/// parts, statistics, the commit), in the order each first ran, summed over the load's files.
public final class PhaseTimings: Sendable {
    /// One phase and its time.
    public struct Phase: Sendable {
        public let name: String
        public internal(set) var duration: Duration

        public var seconds: Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    private let recorded = Mutex<[Phase]>([])

    public init() {}

    /// The phases so far, in the order each first ran.
    public var phases: [Phase] { recorded.withLock { $0 } }

    /// Adds `duration` to `phase`.
    func add(_ phase: String, _ duration: Duration) {
        recorded.withLock { phases in
            if let index = phases.firstIndex(where: { $0.name == phase }) {
                phases[index].duration += duration
            } else {
                phases.append(Phase(name: phase, duration: duration))
            }
        }
    }

    /// Runs `body`, adding its time to `phase`.
    func measure<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        let started = ContinuousClock.now
        defer { add(phase, ContinuousClock.now - started) }
        return try body()
    }
}

extension PhaseTimings {
    /// The phases as a table, each with its seconds and share of `total` (the whole command), and the
    /// rest (connecting, checking the schema, taking locks, fetching) on a line of its own.
    public func table(total: Duration) -> String {
        let phases = self.phases
        let rest = Phase(name: "the rest (connecting, schema check, locks, fetching)",
                         duration: total - phases.reduce(Duration.zero) { $0 + $1.duration })
        let all = Phase(name: "total", duration: total)
        let width = (phases + [rest]).map(\.name.count).max() ?? 0
        func line(_ phase: Phase) -> String {
            let share = all.seconds > 0 ? Int((100 * phase.seconds / all.seconds).rounded()) : 0
            return "  " + phase.name.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(format: " %9.3f s %4d%%", phase.seconds, share)
        }
        return (["timings:"] + (phases + [rest, all]).map(line)).joined(separator: "\n")
    }
}

extension Optional where Wrapped == PhaseTimings {
    /// Runs `body`, adding its time to `phase` when timings are kept.
    func measure<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        guard let timings = self else { return try body() }
        return try timings.measure(phase, body)
    }
}
