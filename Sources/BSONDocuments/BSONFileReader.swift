import CLibBSON
import Foundation

/// The documents of a `.bson` file (what `mongodump` writes for a collection: documents one after
/// another), read one at a time through libbson, MongoDB's own C library, in constant memory.
public final class BSONFileReader {
    public let path: String
    private let reader: UnsafeMutablePointer<bson_reader_t>
    /// How many documents have been read.
    public private(set) var count = 0
    /// The file's size: libbson reports a document cut short by the end of the file as the end.
    private let size: Int64

    /// Opens the file. Throws `DocumentFileError` when it cannot be opened.
    public init(path: String) throws(DocumentFileError) {
        self.path = path
        var error = bson_error_t()
        guard let reader = bson_reader_new_from_file(path, &error) else {
            throw DocumentFileError(path: path, position: nil, message: Self.text(of: &error))
        }
        self.reader = reader
        size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    deinit {
        bson_reader_destroy(reader)
    }

    /// How deep documents and arrays may nest inside a document: MongoDB's own limit. A deeper
    /// document cannot come from a MongoDB server, and libbson would follow it down the stack.
    public static let maximumNesting = 100

    /// The next document, or nil at the end of the file. Throws when the rest of the file is no
    /// BSON: a truncated document, a length that does not fit, nesting deeper than MongoDB allows,
    /// text that is not UTF-8.
    public func next() throws(DocumentFileError) -> BSONDocument? {
        var atEnd = false
        guard let document = bson_reader_read(reader, &atEnd) else {
            if atEnd && bson_reader_tell(reader) >= size { return nil }
            throw DocumentFileError(path: path, position: count + 1,
                                    message: "document \(count + 1) is not BSON (cut short or corrupt): is this file from mongodump?")
        }
        count += 1
        // Checked before libbson's own validation, which recurses once per level.
        if Self.nestsTooDeep(document) {
            throw DocumentFileError(path: path, position: count,
                                    message: "document \(count) nests documents or arrays more than \(Self.maximumNesting) levels deep, which MongoDB never stores")
        }
        var offset = 0
        guard bson_validate(document, BSON_VALIDATE_UTF8, &offset) else {
            throw DocumentFileError(path: path, position: count,
                                    message: "document \(count) is not valid BSON (at byte \(offset) of the document)")
        }
        let number = count
        let fields = try Self.withIterator { iterator throws(DocumentFileError) in
            guard bson_iter_init(iterator, document) else {
                throw DocumentFileError(path: path, position: number, message: "document \(number) is not valid BSON")
            }
            return try Self.fields(of: iterator, at: "") { field throws(DocumentFileError) in
                throw DocumentFileError(path: path, position: number,
                                        message: "document \(number): \(field) holds text that is not UTF-8; MongoDB stores only UTF-8, so the file is damaged or was not written by mongodump")
            }
        }
        return BSONDocument(fields)
    }

    /// Whether `document` nests documents or arrays deeper than `maximumNesting`, found with a
    /// stack of iterators of its own instead of recursion.
    private static func nestsTooDeep(_ document: OpaquePointer) -> Bool {
        var stack: [OpaquePointer] = []
        defer { stack.forEach { crubatch_bson_iter_free($0) } }
        stack.append(newIterator())
        // A document libbson cannot iterate is left for its validation to name.
        guard bson_iter_init(stack[0], document) else { return false }
        while let top = stack.last {
            guard bson_iter_next(top) else {
                crubatch_bson_iter_free(stack.removeLast())
                continue
            }
            let type = bson_iter_type(top)
            guard type == BSON_TYPE_DOCUMENT || type == BSON_TYPE_ARRAY else { continue }
            // The stack holds the top document and every level inside it down to here.
            if stack.count > maximumNesting { return true }
            stack.append(newIterator())
            if !bson_iter_recurse(top, stack[stack.count - 1]) { crubatch_bson_iter_free(stack.removeLast()) }
        }
        return false
    }

    /// Every document of the file.
    public static func readAll(path: String) throws(DocumentFileError) -> [BSONDocument] {
        let reader = try BSONFileReader(path: path)
        var documents: [BSONDocument] = []
        while let document = try reader.next() { documents.append(document) }
        return documents
    }

    /// Runs `body` with a fresh iterator.
    private static func withIterator<T, E: Error>(_ body: (OpaquePointer) throws(E) -> T) throws(E) -> T {
        let iterator = newIterator()
        defer { crubatch_bson_iter_free(iterator) }
        return try body(iterator)
    }

    /// A fresh iterator, freed by the caller (libbson aborts when it cannot allocate one).
    private static func newIterator() -> OpaquePointer {
        guard let iterator = crubatch_bson_iter_new() else { fatalError("libbson could not allocate an iterator") }
        return iterator
    }

    /// The text of a NUL-terminated buffer libbson filled.
    private static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Called with the dotted path of a field whose text is not UTF-8; throws the error to report.
    private typealias InvalidText = (String) throws(DocumentFileError) -> Never

    private static func fields(of iterator: OpaquePointer, at path: String,
                               invalid: InvalidText) throws(DocumentFileError) -> [String: BSONValue] {
        var fields: [String: BSONValue] = [:]
        while bson_iter_next(iterator) {
            let key = String(cString: bson_iter_key(iterator))
            fields[key] = try value(at: iterator, path: path.isEmpty ? key : path + "." + key, invalid: invalid)
        }
        return fields
    }

    private static func elements(of iterator: OpaquePointer, at path: String,
                                 invalid: InvalidText) throws(DocumentFileError) -> [BSONValue] {
        var elements: [BSONValue] = []
        while bson_iter_next(iterator) {
            elements.append(try value(at: iterator, path: "\(path).\(elements.count)", invalid: invalid))
        }
        return elements
    }

    /// The value the iterator is on, at the dotted `path` of its document.
    private static func value(at iterator: OpaquePointer, path: String,
                              invalid: InvalidText) throws(DocumentFileError) -> BSONValue {
        let type = bson_iter_type(iterator)
        switch type {
        case BSON_TYPE_DOUBLE: return .double(bson_iter_double(iterator))
        case BSON_TYPE_UTF8:
            var length: UInt32 = 0
            let bytes = bson_iter_utf8(iterator, &length)!
            // libbson's validation lets some invalid UTF-8 in values through: nothing is replaced here.
            guard let text = String(validating: UnsafeRawBufferPointer(start: bytes, count: Int(length)), as: UTF8.self) else {
                try invalid(path)
            }
            return .string(text)
        case BSON_TYPE_DOCUMENT, BSON_TYPE_ARRAY:
            return try withIterator { child throws(DocumentFileError) in
                guard bson_iter_recurse(iterator, child) else { return .unsupported("corrupt") }
                return type == BSON_TYPE_DOCUMENT ? .document(BSONDocument(try fields(of: child, at: path, invalid: invalid)))
                    : .array(try elements(of: child, at: path, invalid: invalid))
            }
        case BSON_TYPE_BINARY:
            var subtype = bson_subtype_t(0), length: UInt32 = 0
            var bytes: UnsafePointer<UInt8>?
            bson_iter_binary(iterator, &subtype, &length, &bytes)
            return .binary(subtype: UInt8(subtype.rawValue), bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data())
        case BSON_TYPE_OID:
            var text = [CChar](repeating: 0, count: 25)
            bson_oid_to_string(bson_iter_oid(iterator), &text)
            return .objectID(self.text(of: text))
        case BSON_TYPE_BOOL: return .bool(bson_iter_bool(iterator))
        case BSON_TYPE_DATE_TIME: return .date(bson_iter_date_time(iterator))
        case BSON_TYPE_NULL: return .null
        case BSON_TYPE_REGEX:
            var options: UnsafePointer<CChar>?
            let pattern = bson_iter_regex(iterator, &options)
            return .regularExpression(pattern: pattern.map { String(cString: $0) } ?? "",
                                      options: options.map { String(cString: $0) } ?? "")
        case BSON_TYPE_INT32: return .int(Int64(bson_iter_int32(iterator)))
        case BSON_TYPE_INT64: return .int(bson_iter_int64(iterator))
        case BSON_TYPE_TIMESTAMP:
            var seconds: UInt32 = 0, increment: UInt32 = 0
            bson_iter_timestamp(iterator, &seconds, &increment)
            return .timestamp(seconds: seconds, increment: increment)
        case BSON_TYPE_DECIMAL128:
            var decimal = bson_decimal128_t()
            guard bson_iter_decimal128(iterator, &decimal) else { return .unsupported("decimal") }
            var text = [CChar](repeating: 0, count: 64)
            bson_decimal128_to_string(&decimal, &text)
            return .decimal(self.text(of: text))
        case BSON_TYPE_UNDEFINED: return .unsupported("undefined")
        case BSON_TYPE_SYMBOL: return .unsupported("symbol")
        case BSON_TYPE_CODE, BSON_TYPE_CODEWSCOPE: return .unsupported("javascript")
        case BSON_TYPE_MINKEY: return .unsupported("minKey")
        case BSON_TYPE_MAXKEY: return .unsupported("maxKey")
        default: return .unsupported("type \(type.rawValue)")
        }
    }

    private static func text(of error: inout bson_error_t) -> String {
        withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
