import CLibZ
import Foundation
import ZIPFoundation

/// How far a workbook may inflate before it is refused. An .xlsx is compressed: a file of a
/// megabyte can hold a gigabyte of XML (a ZIP bomb), so every part is counted as it inflates.
public struct WorkbookLimits: Sendable {
    /// The most bytes a streamed part (a sheet, the shared strings) may inflate to, whatever its
    /// compressed size.
    public var maxPartBytes: Int
    /// A streamed part may also inflate to this many times its compressed size, up to
    /// `maxLargePartBytes`. A real sheet compresses about ten to one (a million rows of ten columns:
    /// 73 MB inflating to 594 MB) and a ZIP bomb a thousand to one, so a large real workbook is read
    /// while a small file that inflates without end is still held to `maxPartBytes`.
    public var maxInflationRatio: Int
    /// The most bytes any streamed part may inflate to.
    public var maxLargePartBytes: Int
    /// The most bytes a part read whole (workbook, relationships, styles) may inflate to.
    public var maxWholePartBytes: Int
    /// The longest text of one cell, in UTF-8 bytes; the same as a CSV field's by default.
    public var maxCellBytes: Int
    /// The most memory the shared strings, which are held, may take: their text and 8 bytes a string.
    public var maxSharedStringBytes: Int

    public init(maxPartBytes: Int = 512 << 20, maxInflationRatio: Int = 100, maxLargePartBytes: Int = 4 << 30,
                maxWholePartBytes: Int = 16 << 20, maxCellBytes: Int = 1 << 20, maxSharedStringBytes: Int = 64 << 20) {
        self.maxPartBytes = maxPartBytes
        self.maxInflationRatio = maxInflationRatio
        self.maxLargePartBytes = maxLargePartBytes
        self.maxWholePartBytes = maxWholePartBytes
        self.maxCellBytes = maxCellBytes
        self.maxSharedStringBytes = maxSharedStringBytes
    }

    /// The most bytes a streamed part of `compressedSize` bytes may inflate to.
    public func streamedPartLimit(compressedSize: Int) -> Int {
        let (scaled, overflow) = compressedSize.multipliedReportingOverflow(by: maxInflationRatio)
        return max(maxPartBytes, min(overflow ? .max : scaled, maxLargePartBytes))
    }

    /// `512 MiB`, or a number of bytes when it is no whole number of MiB.
    static func size(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}

/// The ZIP package of a workbook: its small parts read whole, its large parts (worksheets, shared
/// strings) streamed.
struct WorkbookPackage {
    let path: String
    let limits: WorkbookLimits
    private let archive: Archive

    init(path: String, limits: WorkbookLimits) throws(WorkbookError) {
        self.path = path
        self.limits = limits
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .notAWorkbook(path: path, reason: "it is not a valid ZIP package")
        }
    }

    func contains(_ part: String) -> Bool { archive[part] != nil }

    /// The uncompressed size of a part, 0 when it is missing.
    /// A ZIP64 entry may claim any size up to 2^64 - 1.
    func size(of part: String) -> Int { archive[part].map { Int(clamping: $0.uncompressedSize) } ?? 0 }

    /// A small part (workbook, relationships, styles) in memory; nil when the package lacks it.
    func data(of part: String) throws(WorkbookError) -> Data? {
        guard let entry = archive[part] else { return nil }
        var data = Data()
        let limit = limits.maxWholePartBytes
        do {
            let intact = try archive.extractVerifying(entry) { chunk in
                guard data.count + chunk.count <= limit else { throw PartReadFailure.inflates(part, past: limit) }
                data.append(chunk)
            }
            guard intact else { throw PartReadFailure(message: "its checksum does not match") }
        } catch {
            throw .notAWorkbook(path: path, reason: "its part \(part) cannot be read (\(PartReadFailure(error).message))")
        }
        return data
    }
}

extension Archive {
    /// Hands `consume` an entry's bytes as they inflate and says whether their CRC-32 is the one the
    /// entry records. zlib computes it: ZIPFoundation's own, a byte at a time in Swift, cost as much
    /// as the inflating.
    func extractVerifying(_ entry: Entry, bufferSize: Int = defaultReadChunkSize,
                          _ consume: (Data) throws -> Void) throws -> Bool {
        var checksum: uLong = 0
        _ = try extract(entry, bufferSize: bufferSize, skipCRC32: true) { chunk in
            chunk.withUnsafeBytes { bytes in
                guard let base = bytes.bindMemory(to: Bytef.self).baseAddress else { return }
                checksum = crc32(checksum, base, uInt(bytes.count))
            }
            try consume(chunk)
        }
        return CRC32(checksum) == entry.checksum
    }
}

/// Why a part of the package could not be read (a damaged or truncated file).
struct PartReadFailure: Error, Sendable {
    let message: String

    init(message: String) {
        self.message = message
    }

    init(_ error: any Error) {
        self.message = (error as? PartReadFailure)?.message ?? String(describing: error)
    }

    /// A part that inflates to more than `limit` bytes: a ZIP bomb, or a sheet too large to import.
    static func inflates(_ part: String, past limit: Int) -> PartReadFailure {
        PartReadFailure(message: "\(part) inflates to more than \(WorkbookLimits.size(limit)), "
                            + "more than crubatch reads from one part")
    }
}

/// The uncompressed bytes of one part of a ZIP package as an `InputStream`, for `XMLParser(stream:)`.
///
/// ZIPFoundation hands out an entry's bytes by calling a closure, while XMLParser pulls them from
/// a stream: a thread of its own runs the extraction and passes 64 KiB chunks through a queue of
/// four, so memory stays flat however large the part.
final class PartInputStream: InputStream {
    private let chunks = BoundedQueue<Data, PartReadFailure>(capacity: 4)
    private var current = Data()
    private var offset = 0
    /// Uncompressed bytes handed to the reader so far.
    private(set) var bytesRead = 0
    /// Why the bytes stopped early, once `read` has returned -1.
    private(set) var failure: PartReadFailure?

    /// Streams `part`, failing once it inflates past what `limits` allow a part of its compressed size.
    init(packagePath: String, part: String, limits: WorkbookLimits) {
        super.init(data: Data())
        let queue = chunks
        Thread.detachNewThread {
            do {
                let archive = try Archive(url: URL(fileURLWithPath: packagePath), accessMode: .read)
                guard let entry = archive[part] else {
                    throw PartReadFailure(message: "the package has no part \(part)")
                }
                let limit = limits.streamedPartLimit(compressedSize: Int(clamping: entry.compressedSize))
                var inflated = 0
                var prolog = PrologCheck()
                let intact = try archive.extractVerifying(entry, bufferSize: 1 << 16) { chunk in
                    inflated += chunk.count
                    guard inflated <= limit else { throw PartReadFailure.inflates(part, past: limit) }
                    if let refusal = prolog.feed(chunk).refusal { throw PartReadFailure(message: "\(part): \(refusal)") }
                    try queue.put(chunk)
                }
                guard intact else { throw PartReadFailure(message: "\(part) is damaged (its checksum does not match)") }
                queue.finish()
            } catch is BoundedQueue<Data, PartReadFailure>.Cancelled {
                return
            } catch {
                queue.finish(failure: PartReadFailure(error))
            }
        }
    }

    deinit {
        chunks.cancel()
    }

    /// Stops the extraction (the reader wants no more).
    func cancel() {
        chunks.cancel()
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { failure == nil }
    /// XMLParser asks for this when `read` returns -1; the inherited getter traps in a subclass.
    override var streamError: (any Error)? { failure }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        while offset >= current.count {
            do throws(PartReadFailure) {
                guard let next = try chunks.take() else { return 0 }
                current = next
                offset = 0
            } catch {
                failure = error
                return -1
            }
        }
        let count = min(maxLength, current.count - offset)
        current.withUnsafeBytes { bytes in
            buffer.update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: count)
        }
        offset += count
        bytesRead += count
        return count
    }
}
