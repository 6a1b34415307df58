import Dispatch
import Foundation

/// Work on many independent items split over the machine's cores: the rows of a questionnaire, the
/// requests of a ride leg. Each part runs `body` on a contiguous range of the items; the results
/// come back in the order of the ranges, so the outcome is the same as one pass in order.
enum Concurrently {
    /// The machine's cores.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Splits `0..<count` into at most one range per core of `cores`, none shorter than
    /// `minimumPart` (a small job is not worth a thread), and runs `body` on each at once.
    static func parts<T: Sendable>(of count: Int, minimumPart: Int = 512, cores: Int = cores,
                                   _ body: @Sendable (Range<Int>) -> T) -> [T] {
        let partCount = max(1, min(cores, count / max(1, minimumPart)))
        guard partCount > 1 else { return [body(0..<count)] }
        var results = [T?](repeating: nil, count: partCount)
        results.withUnsafeMutableBufferPointer { slots in
            // Each part writes only its own slot.
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: partCount) { part in
                slots[part] = body(count * part / partCount..<count * (part + 1) / partCount)
            }
        }
        return results.map { $0! }
    }
}

/// Work started on another thread now and waited for later: the next ride leg's nearest cars,
/// found while this leg is solved.
final class BackgroundWork<Result: Sendable>: @unchecked Sendable {
    // Written once by the work before it leaves `finished`, read only after waiting for it.
    private var result: Result?
    private let finished = DispatchGroup()

    init(_ body: @escaping @Sendable () -> Result) {
        finished.enter()
        DispatchQueue.global().async {
            self.result = body()
            self.finished.leave()
        }
    }

    /// The work's result, once it is done.
    var value: Result {
        finished.wait()
        return result!
    }
}
