import Dispatch
import Synchronization

extension Notifier {
    /// Delivers everything due over `senders` mail connections at once, each sender a `Notifier` of
    /// its own (its own database session and SMTP connection, made by `makeNotifier` on its own
    /// thread) running `deliverDue`. Each claims notifications the others have not locked
    /// (`for update skip locked`), so every message is still sent once; while one sender waits for
    /// the mail server's reply, another prepares and marks its message. One sender is `deliverDue`
    /// itself.
    ///
    /// The summary adds up the senders' counts (the first stop is the run's stop) and says what is
    /// left waiting once every sender has finished. A sender that fails (the database unreachable)
    /// does not stop the others: the first failure is thrown when all have finished.
    public static func deliverDue(senders: Int, makeNotifier: @escaping @Sendable () throws -> Notifier) throws -> NotifySummary {
        precondition(senders >= 1, "at least one sender")
        if senders == 1 { return try makeNotifier().deliverDue() }
        let finished = Mutex<[Result<NotifySummary, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: senders) { _ in
            let result = Result { try makeNotifier().deliverDue() }
            finished.withLock { $0.append(result) }
        }
        var total = NotifySummary()
        for result in finished.withLock({ $0 }) { total.add(try result.get()) }
        try makeNotifier().noteNextRetry(in: &total)
        return total
    }
}
