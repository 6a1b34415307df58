import FileOutput
import CLibCSV
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One CSV record and the physical line it starts on (a quoted newline makes a record span lines).
public struct CSVRecord: Sendable, Equatable {
    public var line: Int
    public var fields: [String]

    public init(line: Int, fields: [String]) {
        self.line = line
        self.fields = fields
    }
}

/// Why a file could not be opened at all (as opposed to a problem inside it).
public enum FileOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file"
        case .unreadable(let path, let reason): "\(path): cannot read: \(reason)"
        }
    }
}

/// Streams records out of a CSV file through libcsv, in constant memory whatever the file size.
///
/// It strips a UTF-8 BOM, accepts LF and CRLF, keeps spaces (RFC 4180), sniffs `,` `;` or TAB from
/// the header line, converts Windows-1252 when asked, and turns every byte-level problem
/// (malformed quoting, invalid UTF-8, NUL, an over-long field) into a located `Diagnostic`.
/// libcsv gives no positions, so the reader feeds it one physical line at a time and counts.
public final class CSVReader {
    /// What one call to `next()` yields.
    public enum Event: Sendable, Equatable {
        case record(CSVRecord)
        /// An empty line between records (libcsv skips it; staff should hear about it).
        case blankLine(Int)
    }

    /// How to read a file.
    public struct Options: Sendable {
        /// The name diagnostics use (usually the path as the user typed it).
        public var displayName: String?
        /// The delimiter, or nil to sniff it from the header line.
        public var delimiter: UInt8?
        public var encoding: TextEncoding
        public var maxFieldBytes: Int
        public var chunkSize: Int

        public init(displayName: String? = nil, delimiter: UInt8? = nil, encoding: TextEncoding = .utf8,
                    maxFieldBytes: Int = 1 << 20, chunkSize: Int = 1 << 16) {
            self.displayName = displayName
            self.delimiter = delimiter
            self.encoding = encoding
            self.maxFieldBytes = maxFieldBytes
            self.chunkSize = chunkSize
        }
    }

    public let displayName: String
    /// Size of the file in bytes, for progress reporting.
    public let fileSize: Int
    /// Raw bytes read so far.
    public private(set) var bytesRead = 0
    /// The delimiter in use (known once the first record has been read).
    public private(set) var delimiter: UInt8 = UInt8(ascii: ",")

    private let options: Options
    private let descriptor: Int32
    private let parser: UnsafeMutablePointer<csv_parser>
    private let hasher = SHA256Hasher()
    private var readBuffer: [UInt8]
    private var transcoded: [UInt8] = []
    private var carry: [UInt8] = []
    private var started = false
    private var finished = false
    private var pendingFatal: Diagnostic?
    private var events: [Event] = []
    private var eventIndex = 0
    private var digest: String?

    // Position bookkeeping, updated while feeding libcsv.
    private var line = 1
    private var atLineStart = true
    private var lineStartsBetweenRecords = true
    private var lineHasContent = false
    private var pendingRecordStart = 1
    private var recordStart = 1
    private var fields: [String] = []
    private var openQuote: (line: Int, column: Int) = (1, 1)
    private var oversizedField: (line: Int, column: Int)?
    /// Fields libcsv has handed over so far (to tell whether a quote opened during a segment).
    private var acceptedFields = 0
    /// Whether the segment being fed began inside a quoted field, and how many fields had been accepted then.
    private var segmentStartedInQuote = false
    private var acceptedFieldsAtSegmentStart = 0
    /// Raw file bytes (after the BOM) fed to libcsv so far; with Windows-1252 this differs from the
    /// transcoded bytes, and diagnostics give offsets in the file as it is on disk.
    private var processedBytes = 0
    private var bomLength = 0

    public init(path: String, options: Options = Options()) throws(FileOpenError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .unreadable(path: path, reason: "it is a directory")
        }
        self.descriptor = fd
        self.fileSize = Int(info.st_size)
        self.options = options
        self.displayName = options.displayName ?? path
        self.readBuffer = [UInt8](repeating: 0, count: max(options.chunkSize, 16))
        self.parser = .allocate(capacity: 1)
        csv_init(parser, UInt8(CSV_STRICT | CSV_STRICT_FINI))
        csv_set_space_func(parser, crubatch_csv_no_spaces)
    }

    deinit {
        csv_free(parser)
        parser.deallocate()
        close(descriptor)
    }

    /// The SHA-256 of the raw file, available once `next()` has returned nil.
    public var sha256Hex: String? { digest }

    /// The next record or blank line; nil at the end of the file. Throws the first fatal problem,
    /// after yielding every record that precedes it.
    public func next() throws(Diagnostic) -> Event? {
        while eventIndex >= events.count {
            if finished {
                if let fatal = pendingFatal {
                    pendingFatal = nil
                    throw fatal
                }
                return nil
            }
            events.removeAll(keepingCapacity: true)
            eventIndex = 0
            do {
                try readAndFeedChunk()
            } catch {
                pendingFatal = error
                finished = true
            }
        }
        defer { eventIndex += 1 }
        return events[eventIndex]
    }

    // MARK: Reading

    private func readAndFeedChunk() throws(Diagnostic) {
        let count = readBuffer.withUnsafeMutableBytes { buffer -> Int in
            var n: Int
            repeat {
                n = read(descriptor, buffer.baseAddress, buffer.count)
            } while n < 0 && errno == EINTR
            return n
        }
        guard count > 0 else {
            try finish()
            return
        }
        bytesRead += count
        readBuffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        var bytes = carry
        carry.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: readBuffer[0..<count])
        if !started {
            started = true
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                throw Diagnostic(
                    file: displayName, line: 1, code: .encodingError,
                    message: "the file is UTF-16 text (it starts with a UTF-16 byte order mark), "
                        + "which crubatch does not read",
                    hint: "save it as \"CSV UTF-8\" (Excel's \"Unicode Text\" is UTF-16)")
            }
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                bytes.removeFirst(3)
                bomLength = 3
            }
            delimiter = options.delimiter ?? Self.sniffDelimiter(bytes)
            csv_set_delim(parser, delimiter)
        }
        switch options.encoding {
        case .utf8:
            let tail = bytes.withUnsafeBytes { ByteScan.incompleteTailLength($0) }
            if tail > 0 {
                carry.append(contentsOf: bytes.suffix(tail))
                bytes.removeLast(tail)
            }
            try feedLines(bytes)
        case .windows1252:
            transcoded.removeAll(keepingCapacity: true)
            bytes.withUnsafeBytes { ByteScan.transcodeWindows1252($0, into: &transcoded) }
            try feedLines(transcoded)
        }
    }

    private func finish() throws(Diagnostic) {
        finished = true
        digest = hasher.finalizeHex()
        if !carry.isEmpty {
            throw encodingDiagnostic(byte: carry[0], column: currentColumn(before: carry.count, in: nil),
                                     fileOffset: bomLength + processedBytes)
        }
        let status = csv_fini(parser, csvFieldCallback, csvRecordCallback, Unmanaged.passUnretained(self).toOpaque())
        if status != 0 {
            throw Diagnostic(
                file: displayName, line: openQuote.line, column: openQuote.column, code: .malformedCSV,
                message: "a quoted cell starts here and is never closed",
                hint: "close the quote with \" or remove it; a quote inside a quoted cell is written twice (\"\")")
        }
    }

    /// Feeds libcsv one physical line (or the part of it in this chunk) at a time, so every
    /// callback knows which line it is on.
    private func feedLines(_ bytes: [UInt8]) throws(Diagnostic) {
        var failure: Diagnostic?
        bytes.withUnsafeBytes { buffer in
            do throws(Diagnostic) { try feedLines(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func feedLines(_ buffer: UnsafeRawBufferPointer) throws(Diagnostic) {
        guard let base = buffer.baseAddress else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var start = 0
        while start < buffer.count {
            let newline = memchr(base + start, 0x0A, buffer.count - start)
            let end = newline.map { base.distance(to: UnsafeRawPointer($0)) + 1 } ?? buffer.count
            let segment = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            if atLineStart {
                lineStartsBetweenRecords = crubatch_csv_between_records(parser) != 0
                lineHasContent = false
                if lineStartsBetweenRecords { pendingRecordStart = line }
            }
            if let problem = ByteScan.firstProblem(in: segment) {
                throw byteDiagnostic(problem, segment: segment)
            }
            if !lineHasContent {
                lineHasContent = segment.contains { $0 != 0x0A && $0 != 0x0D }
            }
            // Inside a quoted cell, or just after a quote that a chunk boundary may have split from its double.
            segmentStartedInQuote = parser.pointee.quoted != 0 && (parser.pointee.pstate == 2 || parser.pointee.pstate == 3)
            acceptedFieldsAtSegmentStart = acceptedFields
            let used = csv_parse(parser, segment.baseAddress, segment.count, csvFieldCallback, csvRecordCallback, context)
            if used != segment.count {
                throw Diagnostic(
                    file: displayName, line: line, column: fields.count + 1, code: .malformedCSV,
                    message: "stray quote: a cell that is not quoted contains \", or text follows a closing quote",
                    hint: "quote the whole cell and write each \" inside it twice, e.g. \"5'10\"\" tall\"")
            }
            // A quote opened on this line if the parser is now in a quoted field that is not the one
            // it was in when the line began (that one may have closed and another opened).
            if crubatch_csv_in_quoted_field(parser) != 0
                && (!segmentStartedInQuote || acceptedFields != acceptedFieldsAtSegmentStart) {
                openQuote = (line, fields.count + 1)
            }
            if let oversized = oversizedField ?? pendingOversized() {
                throw Diagnostic(
                    file: displayName, line: oversized.line, column: oversized.column, code: .fieldTooLong,
                    message: "a cell is longer than \(options.maxFieldBytes) bytes",
                    hint: "this is usually a quote that is never closed; otherwise shorten the cell")
            }
            processedBytes += rawLength(segment)
            if newline != nil {
                if lineStartsBetweenRecords && !lineHasContent { events.append(.blankLine(line)) }
                line += 1
                atLineStart = true
            } else {
                atLineStart = false
            }
            start = end
        }
    }

    /// The cell being parsed, if it is already too long: located where it starts (a quoted cell
    /// that is never closed starts at its quote, possibly many lines up).
    private func pendingOversized() -> (line: Int, column: Int)? {
        guard crubatch_csv_pending_field_length(parser) > options.maxFieldBytes else { return nil }
        return crubatch_csv_in_quoted_field(parser) != 0 ? openQuote : (line, fields.count + 1)
    }

    /// How many bytes of the file on disk `bytes` (as fed to libcsv) came from.
    private func rawLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        switch options.encoding {
        case .utf8:
            return bytes.count
        case .windows1252:
            // Each Windows-1252 byte became one UTF-8 sequence: count the sequences' first bytes.
            return bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        }
    }

    // MARK: Callbacks from libcsv

    fileprivate func acceptField(_ data: UnsafeMutableRawPointer?, _ length: Int) {
        if fields.isEmpty { recordStart = pendingRecordStart }
        if length > options.maxFieldBytes, oversizedField == nil {
            // The first field completed in a segment that began inside a quote started at that quote;
            // any other field started on the current line.
            let continued = segmentStartedInQuote && acceptedFields == acceptedFieldsAtSegmentStart
            oversizedField = (continued ? openQuote.line : line, fields.count + 1)
        }
        acceptedFields += 1
        guard let data, length > 0 else {
            fields.append("")
            return
        }
        // A typed UInt8 buffer takes String's fast path (the bytes were validated as UTF-8 already).
        fields.append(String(decoding: UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: length),
                             as: UTF8.self))
    }

    fileprivate func acceptRecordEnd() {
        // A record holding an over-long cell is never yielded: the segment's check throws for it.
        if oversizedField == nil {
            events.append(.record(CSVRecord(line: recordStart, fields: fields)))
        }
        fields.removeAll(keepingCapacity: true)
    }

    // MARK: Diagnostics

    private func byteDiagnostic(_ problem: ByteScan.Problem, segment: UnsafeRawBufferPointer) -> Diagnostic {
        switch problem {
        case .nul(let offset):
            return Diagnostic(
                file: displayName, line: line, column: currentColumn(before: offset, in: segment), code: .nulByte,
                message: "the file contains a NUL byte (at byte offset \(bomLength + processedBytes + rawLength(UnsafeRawBufferPointer(rebasing: segment.prefix(offset)))))",
                hint: "this is not a text CSV file; export the sheet again as CSV")
        case .invalidUTF8(let offset, let byte):
            return encodingDiagnostic(byte: byte, column: currentColumn(before: offset, in: segment),
                                      fileOffset: bomLength + processedBytes + rawLength(UnsafeRawBufferPointer(rebasing: segment.prefix(offset))))
        }
    }

    private func encodingDiagnostic(byte: UInt8, column: Int, fileOffset: Int) -> Diagnostic {
        let hex = String(byte, radix: 16, uppercase: true)
        return Diagnostic(
            file: displayName, line: line, column: column, code: .encodingError,
            message: "invalid UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) at byte offset \(fileOffset)",
            hint: "the file is probably Windows-1252 (Excel's \"CSV\"); run again with --encoding windows-1252 or save it as \"CSV UTF-8\"")
    }

    /// The 1-based cell that holds byte `offset` of the segment about to be fed.
    private func currentColumn(before offset: Int, in segment: UnsafeRawBufferPointer?) -> Int {
        var column = fields.count + 1
        var inQuote = crubatch_csv_in_quoted_field(parser) != 0
        if let segment {
            for byte in segment.prefix(offset) {
                if byte == 0x22 { inQuote.toggle() } else if byte == delimiter && !inQuote { column += 1 }
            }
        }
        return column
    }

    /// Picks `,` `;` or TAB, whichever occurs most outside quotes on the first line; ties go to the
    /// earlier of `,` `;` TAB (a dictionary's order would make the choice differ from run to run).
    static func sniffDelimiter(_ bytes: [UInt8]) -> UInt8 {
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t")]
        var counts = [0, 0, 0]
        var inQuote = false
        for byte in bytes {
            if byte == 0x22 { inQuote.toggle(); continue }
            if inQuote { continue }
            if byte == 0x0A || byte == 0x0D { break }
            if let index = candidates.firstIndex(of: byte) { counts[index] += 1 }
        }
        var best = 0
        for index in 1..<candidates.count where counts[index] > counts[best] { best = index }
        return candidates[best]
    }
}

private func csvFieldCallback(_ data: UnsafeMutableRawPointer?, _ length: Int, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<CSVReader>.fromOpaque(context!).takeUnretainedValue().acceptField(data, length)
}

private func csvRecordCallback(_ terminator: Int32, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<CSVReader>.fromOpaque(context!).takeUnretainedValue().acceptRecordEnd()
}
