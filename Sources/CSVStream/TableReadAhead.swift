import Foundation

/// A table's rows read ahead, in batches, on a thread of its own, so that the thread checking and
/// loading them never waits for the file: reading a CSV file (parsing, decoding the cells) is about
/// a quarter of what an import does itself, and it runs on another core while earlier rows are
/// checked. At most `batchesAhead` batches wait, so memory stays flat however long the file.
///
/// Until the rows run out, or `finish()` returns, only the reading thread touches the table; after
/// that the caller may ask it for its warnings, size and checksum again.
public final class TableReadAhead {
    /// Rows read one after the other, and how far into the input the reader was after the last.
    public struct Batch: Sendable {
        public let rows: [TableRow]
        public let bytesRead: Int
    }

    private let batches: BoundedQueue<Batch, Diagnostic>
    private let readerDone = DispatchSemaphore(value: 0)
    private var readerJoined = false
    /// A table that reads ahead itself, read on the caller's thread, and the rows per batch.
    private var inline: (table: any TableReader, rowsPerBatch: Int)?
    /// The problem that stopped an inline table, thrown once its rows before it are handed out.
    private var inlineFailure: Diagnostic?

    /// Starts reading `table` at once, unless the table reads ahead itself (`readsAhead`): then its
    /// rows are taken in batches on the caller's thread, as they are asked for.
    public init(_ table: any TableReader, rowsPerBatch: Int = 1024, batchesAhead: Int = 4) {
        let batches = BoundedQueue<Batch, Diagnostic>(capacity: batchesAhead)
        self.batches = batches
        guard !table.readsAhead else {
            inline = (table, rowsPerBatch)
            readerDone.signal()
            return
        }
        let readerDone = self.readerDone
        // The table moves to the reading thread, which alone uses it until `readerDone`.
        nonisolated(unsafe) let table = table
        Thread.detachNewThread {
            defer { readerDone.signal() }
            do {
                while true {
                    let (batch, failure) = Self.read(table, rows: rowsPerBatch)
                    if let batch { try batches.put(batch) }
                    if failure != nil || batch?.rows.count != rowsPerBatch {
                        batches.finish(failure: failure)
                        break
                    }
                }
            } catch {
                // Cancelled: the caller wants no more rows.
            }
        }
    }

    /// Up to `count` rows of `table` (nil when none is left), and the problem that stopped the
    /// reading early, if one did.
    private static func read(_ table: any TableReader, rows count: Int) -> (Batch?, Diagnostic?) {
        var rows: [TableRow] = []
        rows.reserveCapacity(count)
        var failure: Diagnostic?
        do throws(Diagnostic) {
            while rows.count < count, let row = try table.next() { rows.append(row) }
        } catch {
            failure = error
        }
        return (rows.isEmpty ? nil : Batch(rows: rows, bytesRead: table.bytesRead), failure)
    }

    deinit {
        batches.cancel()
    }

    /// The next batch of rows; nil after the last. Throws what made the rest of the table
    /// unreadable, once every row before it has been handed out.
    public func next() throws(Diagnostic) -> Batch? {
        if let (table, rowsPerBatch) = inline {
            if let failure = inlineFailure { throw failure }
            let (batch, failure) = Self.read(table, rows: rowsPerBatch)
            inlineFailure = failure
            guard let batch else { if let failure { throw failure } else { return nil } }
            return batch
        }
        do {
            guard let batch = try batches.take() else {
                joinReader()
                return nil
            }
            return batch
        } catch {
            joinReader()
            throw error
        }
    }

    /// Stops reading, when the caller wants no more rows, and waits until the reading thread has let
    /// go of the table. Safe to call more than once, and after the rows ran out.
    public func finish() {
        batches.cancel()
        joinReader()
    }

    private func joinReader() {
        guard !readerJoined else { return }
        readerDone.wait()
        readerJoined = true
    }
}
