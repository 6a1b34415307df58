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

    /// The next document, or nil at the end of the file. Throws when the rest of the file is no
    /// BSON: a truncated document, a length that does not fit, invalid UTF-8.
    public func next() throws(DocumentFileError) -> BSONDocument? {
        var atEnd = false
        guard let document = bson_reader_read(reader, &atEnd) else {
            if atEnd && bson_reader_tell(reader) >= size { return nil }
            throw DocumentFileError(path: path, position: count + 1,
                                    message: "document \(count + 1) is not BSON (cut short or corrupt): is this file from mongodump?")
        }
        count += 1
        var offset = 0
        guard bson_validate(document, BSON_VALIDATE_UTF8, &offset) else {
            throw DocumentFileError(path: path, position: count,
                                    message: "document \(count) is not valid BSON (at byte \(offset) of the document)")
        }
        let fields = Self.withIterator { iterator in
            bson_iter_init(iterator, document) ? Self.fields(of: iterator) : nil
        }
        guard let fields else {
            throw DocumentFileError(path: path, position: count, message: "document \(count) is not valid BSON")
        }
        return BSONDocument(fields)
    }

    /// Every document of the file.
    public static func readAll(path: String) throws(DocumentFileError) -> [BSONDocument] {
        let reader = try BSONFileReader(path: path)
        var documents: [BSONDocument] = []
        while let document = try reader.next() { documents.append(document) }
        return documents
    }

    /// Runs `body` with a fresh iterator (libbson aborts when it cannot allocate one).
    private static func withIterator<T>(_ body: (OpaquePointer) -> T) -> T {
        guard let iterator = crubatch_bson_iter_new() else { fatalError("libbson could not allocate an iterator") }
        defer { crubatch_bson_iter_free(iterator) }
        return body(iterator)
    }

    /// The text of a NUL-terminated buffer libbson filled.
    private static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func fields(of iterator: OpaquePointer) -> [String: BSONValue] {
        var fields: [String: BSONValue] = [:]
        while bson_iter_next(iterator) {
            fields[String(cString: bson_iter_key(iterator))] = value(at: iterator)
        }
        return fields
    }

    private static func elements(of iterator: OpaquePointer) -> [BSONValue] {
        var elements: [BSONValue] = []
        while bson_iter_next(iterator) { elements.append(value(at: iterator)) }
        return elements
    }

    /// The value the iterator is on.
    private static func value(at iterator: OpaquePointer) -> BSONValue {
        let type = bson_iter_type(iterator)
        switch type {
        case BSON_TYPE_DOUBLE: return .double(bson_iter_double(iterator))
        case BSON_TYPE_UTF8:
            var length: UInt32 = 0
            let bytes = bson_iter_utf8(iterator, &length)!
            return .string(String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(length)), as: UTF8.self))
        case BSON_TYPE_DOCUMENT, BSON_TYPE_ARRAY:
            return withIterator { child in
                guard bson_iter_recurse(iterator, child) else { return .unsupported("corrupt") }
                return type == BSON_TYPE_DOCUMENT ? .document(BSONDocument(fields(of: child))) : .array(elements(of: child))
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
