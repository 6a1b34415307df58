import CSVStream
import Foundation

/// A table reader whose rows are read on a thread of their own while the caller works on earlier
/// ones: parsing a CSV file had been a quarter of an import's time on the client, spent before
/// each row could be checked. A queue of a few batches between the two keeps memory flat.
///
/// It hands out what the reader it wraps would: the same rows and warnings in the same order (each
/// warning before the row it came before), the same failure after the rows read before it, the
/// file's SHA-256 (as far as the reader gives one) once the last row or the failure was taken.
/// Only for readers that point at their own rows the default way (`locate` on their sheet): a CSV
/// file's.
final class PrefetchingTableReader: TableReader {
    /// What the reading thread met, in order.
    private enum Item: Sendable {
        case row(TableRow)
        case warning(Diagnostic)
    }

    /// Items as the reading thread hands them over, with the bytes read behind them and, in the
    /// last batch (at the end or before a failure), the file's SHA-256.
    private struct Batch: Sendable {
        var items: [Item] = []
        var bytesRead = 0
        var sha256Hex: String?
    }

    /// The wrapped reader, which only the reading thread touches once it has started.
    private struct Handover: @unchecked Sendable {
        let reader: any TableReader
    }

    /// Rows per batch: enough that the queue's lock is rare, few enough to stay small.
    private static let batchRows = 256

    let displayName: String
    let sheet: String?
    let header: [String]
    let totalBytes: Int
    private(set) var bytesRead: Int
    private(set) var sha256Hex: String?
    private var warnings: [Diagnostic]
    private let batches = BoundedQueue<Batch, Diagnostic>(capacity: 4)
    private let readerDone = DispatchSemaphore(value: 0)
    private var batch: [Item] = []
    private var index = 0

    /// Takes `reader` over: from here on only this object reads it.
    init(_ reader: any TableReader) {
        displayName = reader.displayName
        sheet = reader.sheet
        header = reader.header
        totalBytes = reader.totalBytes
        bytesRead = reader.bytesRead
        warnings = reader.takeWarnings()
        let handover = Handover(reader: reader), batches = batches, readerDone = readerDone
        Thread.detachNewThread {
            defer { readerDone.signal() }
            Self.read(handover.reader, into: batches)
        }
    }

    deinit {
        batches.cancel()
        readerDone.wait()
    }

    /// The reading thread's work: every row and warning of `reader`, in batches, then the end or
    /// the failure that stopped it; stops when the consumer has gone.
    private static func read(_ reader: any TableReader, into batches: BoundedQueue<Batch, Diagnostic>) {
        var batch = Batch()
        var rows = 0
        do {
            while true {
                let row = try reader.next()
                batch.items += reader.takeWarnings().map(Item.warning)
                guard let row else { break }
                batch.items.append(.row(row))
                rows += 1
                if rows == batchRows {
                    batch.bytesRead = reader.bytesRead
                    try batches.put(batch)
                    batch = Batch()
                    rows = 0
                }
            }
            batch.bytesRead = reader.bytesRead
            batch.sha256Hex = reader.sha256Hex
            try batches.put(batch)
            batches.finish()
        } catch let failure as Diagnostic {
            batch.items += reader.takeWarnings().map(Item.warning)
            batch.bytesRead = reader.bytesRead
            batch.sha256Hex = reader.sha256Hex
            try? batches.put(batch)
            batches.finish(failure: failure)
        } catch {
            // Only `BoundedQueue.Cancelled`: the consumer has gone, and nobody waits for the rest.
        }
    }

    func next() throws(Diagnostic) -> TableRow? {
        while true {
            while index < batch.count {
                defer { index += 1 }
                switch batch[index] {
                case .warning(let warning): warnings.append(warning)
                case .row(let row): return row
                }
            }
            guard let next = try batches.take() else { return nil }
            batch = next.items
            index = 0
            bytesRead = next.bytesRead
            if let digest = next.sha256Hex { sha256Hex = digest }
        }
    }

    func takeWarnings() -> [Diagnostic] {
        defer { warnings.removeAll() }
        return warnings
    }
}
