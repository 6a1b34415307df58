import Foundation

/// A first-in first-out hand-over between one producing and one consuming thread that holds at
/// most `capacity` elements, so a fast producer waits instead of filling memory. The producer ends
/// it with `finish(failure:)`; the consumer can `cancel()` it, which makes the producer's next
/// `put` throw so it stops.
final class BoundedQueue<Element: Sendable, Failure: Error & Sendable>: @unchecked Sendable {
    // Every stored property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private let capacity: Int
    private var elements: [Element] = []
    private var finished = false
    private var failure: Failure?
    private var cancelled = false

    /// What `put` throws once the consumer has gone.
    struct Cancelled: Error {}

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds an element, waiting while the queue is full; throws `Cancelled` when the consumer is gone.
    func put(_ element: Element) throws(Cancelled) {
        condition.lock()
        defer { condition.unlock() }
        while elements.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        elements.append(element)
        condition.broadcast()
    }

    /// No more elements will come: the end, or the failure that stopped the producer.
    func finish(failure: Failure? = nil) {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        self.failure = failure
        condition.broadcast()
    }

    /// The next element, waiting for one; nil at the end; the producer's failure once every
    /// element before it was taken.
    func take() throws(Failure) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while elements.isEmpty && !finished { condition.wait() }
        if elements.isEmpty {
            if let failure { throw failure }
            return nil
        }
        condition.broadcast()
        return elements.removeFirst()
    }

    /// The consumer stops taking: the producer's waiting or next `put` throws.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        elements.removeAll()
        condition.broadcast()
    }
}
