import Foundation
import Synchronization

extension Notifier {
    /// Delivers everything due over `senders` mail connections at once, each sender a `Notifier` of
    /// its own (its own database session and SMTP connection, made by `makeNotifier`) running
    /// `deliverDue`: this thread is the first sender, and each other one runs on a thread of its own
    /// (the work waits on the network, so it is not bounded by the cores). Each sender claims
    /// notifications the others have not locked (`for update skip locked`), so every message is
    /// still sent once; while one waits for the mail server's reply, another prepares and marks its
    /// message. With one sender this is `deliverDue` on the calling thread.
    ///
    /// The summary adds up the senders' counts (a refused login outranks any other stop) and says
    /// what is left waiting once every sender has finished. A sender that fails (its database
    /// session lost for good) does not stop the others: the first failure is thrown when all have
    /// finished.
    public static func deliverDue(senders: Int, makeNotifier: @escaping @Sendable () throws -> Notifier) throws -> NotifySummary {
        precondition(senders >= 1, "at least one sender")
        let first = try makeNotifier()
        let others = Mutex<[Result<NotifySummary, any Error>]>([])
        let finished = DispatchGroup()
        for _ in 1..<senders {
            finished.enter()
            Thread {
                let result = Result { try makeNotifier().deliverDue() }
                others.withLock { $0.append(result) }
                finished.leave()
            }.start()
        }
        let own = Result { try first.deliverDue() }
        finished.wait()
        var total = try own.get()
        for result in others.withLock({ $0 }) { total.add(try result.get()) }
        // A lone sender's summary already says so; with others, what they left is read once they are all done.
        if senders > 1 { try first.noteNextRetry(in: &total) }
        return total
    }
}
