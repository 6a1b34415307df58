@testable import CruBatch
import Foundation
import Testing

@Suite("work split over the cores")
struct ConcurrentlyTests {
    @Test("the parts cover every item once, in order, no part shorter than asked; a small job stays one part")
    func parts() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for count in [0, 1, 511, 1_024, 1_025, 10_000, 99_999] {
            let ranges = Concurrently.parts(of: count, minimumPart: 512) { $0 }
            #expect(ranges.flatMap { Array($0) } == Array(0..<count), "\(count)")
            #expect(ranges.count == max(1, min(cores, count / 512)), "\(count)")
            #expect(ranges.count == 1 || ranges.allSatisfy { $0.count >= 512 }, "\(count)")
        }
        // Each part's result comes back in its place, whichever finished first.
        let sums = Concurrently.parts(of: 100_000, minimumPart: 1) { range in range.reduce(0, +) }
        #expect(sums.reduce(0, +) == 99_999 * 100_000 / 2)
        #expect(sums == sums.indices.map { part in
            let count = 100_000, parts = sums.count
            return (count * part / parts..<count * (part + 1) / parts).reduce(0, +)
        })
    }
}
