import Foundation
import ZIPFoundation

/// The ZIP package of a workbook: its small parts read whole, its large parts (worksheets, shared
/// strings) streamed.
struct WorkbookPackage {
    let path: String
    private let archive: Archive

    init(path: String) throws(WorkbookError) {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .notAWorkbook(path: path, reason: "it is not a valid ZIP package")
        }
    }

    func contains(_ part: String) -> Bool { archive[part] != nil }

    /// The uncompressed size of a part, 0 when it is missing.
    func size(of part: String) -> Int { archive[part].map { Int($0.uncompressedSize) } ?? 0 }

    /// A small part (workbook, relationships, styles) in memory; nil when the package lacks it.
    func data(of part: String) throws(WorkbookError) -> Data? {
        guard let entry = archive[part] else { return nil }
        var data = Data()
        do {
            let checksum = try archive.extract(entry, skipCRC32: false) { data.append($0) }
            guard checksum == entry.checksum else { throw PartReadFailure(message: "its checksum does not match") }
        } catch {
            throw .notAWorkbook(path: path, reason: "its part \(part) cannot be read (\(PartReadFailure(error).message))")
        }
        return data
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

    init(packagePath: String, part: String) {
        super.init(data: Data())
        let queue = chunks
        Thread.detachNewThread {
            do {
                let archive = try Archive(url: URL(fileURLWithPath: packagePath), accessMode: .read)
                guard let entry = archive[part] else { throw PartReadFailure(message: "\(part) is missing") }
                let checksum = try archive.extract(entry, bufferSize: 1 << 16, skipCRC32: false) { try queue.put($0) }
                guard checksum == entry.checksum else { throw PartReadFailure(message: "\(part) is damaged (its checksum does not match)") }
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
