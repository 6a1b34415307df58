import Foundation

/// The documents of a `mongoexport` file: MongoDB Extended JSON v2, relaxed or canonical
/// (`{"$oid": ...}`, `{"$date": ...}`, `{"$numberLong": ...}`), one document a line or one JSON
/// array (`--jsonArray`). Each document reads to the `BSONDocument` its BSON form reads to.
public enum ExtendedJSONReader {
    /// Every document of the file, each with its line (1 for every document of an array).
    public static func readAll(path: String) throws(DocumentFileError) -> [(line: Int, document: BSONDocument)] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DocumentFileError(path: path, position: nil, message: "cannot read the file")
        }
        let bytes = [UInt8](data)
        if bytes.first(where: { !isSpace($0) }) == UInt8(ascii: "[") {
            let array: Any
            do {
                array = try JSONSerialization.jsonObject(with: data)
            } catch {
                throw DocumentFileError(path: path, position: nil, message: "the file is no JSON array: \(error.localizedDescription)")
            }
            guard let elements = array as? [Any] else {
                throw DocumentFileError(path: path, position: nil, message: "the file is no JSON array of documents")
            }
            return try elements.map { element throws(DocumentFileError) in (1, try document(element, path: path, line: 1)) }
        }
        var documents: [(line: Int, document: BSONDocument)] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { !isSpace($0) }) {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(line))
            } catch {
                throw DocumentFileError(path: path, position: index + 1,
                                        message: "this line is no JSON document: \(error.localizedDescription)")
            }
            documents.append((index + 1, try document(object, path: path, line: index + 1)))
        }
        return documents
    }

    /// One JSON value as a document.
    private static func document(_ object: Any, path: String, line: Int) throws(DocumentFileError) -> BSONDocument {
        guard let dictionary = object as? [String: Any], case .document(let document) = try value(dictionary, path: path, line: line) else {
            throw DocumentFileError(path: path, position: line, message: "a document must be a JSON object")
        }
        return document
    }

    /// A JSON value, its Extended JSON wrappers read as the BSON types they stand for. `depth`
    /// counts the documents and arrays it is inside of, below the top document.
    static func value(_ object: Any, path: String, line: Int, depth: Int = 0) throws(DocumentFileError) -> BSONValue {
        func fail(_ message: String) -> DocumentFileError { DocumentFileError(path: path, position: line, message: message) }
        if depth > BSONFileReader.maximumNesting {
            throw fail("this document nests documents or arrays more than \(BSONFileReader.maximumNesting) levels deep, which MongoDB never stores")
        }
        switch object {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            default: return .int(number.int64Value)
            }
        case let array as [Any]:
            var elements: [BSONValue] = []
            for element in array { elements.append(try value(element, path: path, line: line, depth: depth + 1)) }
            return .array(elements)
        case let dictionary as [String: Any]:
            if let special = try wrapper(dictionary, fail: fail) { return special }
            var fields: [String: BSONValue] = [:]
            for (name, element) in dictionary { fields[name] = try value(element, path: path, line: line, depth: depth + 1) }
            return .document(BSONDocument(fields))
        default:
            throw fail("a value of an unknown JSON type")
        }
    }

    /// The BSON value an Extended JSON wrapper (`{"$oid": "..."}`) stands for; nil for a plain object.
    private static func wrapper(_ object: [String: Any],
                                fail: (String) -> DocumentFileError) throws(DocumentFileError) -> BSONValue? {
        guard object.count == 1, let key = object.keys.first, key.hasPrefix("$") else {
            return nil
        }
        let content = object[key]!
        func text(_ what: String) throws(DocumentFileError) -> String {
            guard let text = content as? String else { throw fail("\(key) must be a string holding \(what)") }
            return text
        }
        switch key {
        case "$oid":
            let hex = try text("24 hex digits").lowercased()
            guard hex.count == 24, hex.allSatisfy(\.isHexDigit) else { throw fail("\"\(hex)\" is no ObjectId (24 hex digits)") }
            return .objectID(hex)
        case "$date":
            return .date(try dateMilliseconds(content, fail: fail))
        case "$numberInt", "$numberLong":
            guard let number = Int64(try text("an integer")) else { throw fail("\(key) \"\(content)\" is no integer") }
            return .int(number)
        case "$numberDouble":
            let written = try text("a number")
            switch written {
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default:
                guard let number = Double(written) else { throw fail("$numberDouble \"\(written)\" is no number") }
                return .double(number)
            }
        case "$numberDecimal": return .decimal(try text("a decimal number"))
        case "$binary":
            guard let parts = content as? [String: Any], let base64 = parts["base64"] as? String,
                  let subtype = (parts["subType"] as? String).flatMap({ UInt8($0, radix: 16) }), let data = Data(base64Encoded: base64) else {
                throw fail("$binary must be {\"base64\": ..., \"subType\": ...}")
            }
            return .binary(subtype: subtype, data)
        case "$regularExpression":
            guard let parts = content as? [String: Any], let pattern = parts["pattern"] as? String,
                  let options = parts["options"] as? String else {
                throw fail("$regularExpression must be {\"pattern\": ..., \"options\": ...}")
            }
            return .regularExpression(pattern: pattern, options: options)
        case "$timestamp":
            guard let parts = content as? [String: Any], let seconds = (parts["t"] as? NSNumber)?.uint32Value,
                  let increment = (parts["i"] as? NSNumber)?.uint32Value else {
                throw fail("$timestamp must be {\"t\": ..., \"i\": ...}")
            }
            return .timestamp(seconds: seconds, increment: increment)
        case "$undefined": return .unsupported("undefined")
        case "$symbol": return .unsupported("symbol")
        case "$code": return .unsupported("javascript")
        case "$minKey": return .unsupported("minKey")
        case "$maxKey": return .unsupported("maxKey")
        default: return nil
        }
    }

    /// `{"$date": "2026-09-17T19:00:00Z"}` (relaxed, with or without milliseconds or an offset),
    /// `{"$date": {"$numberLong": "..."}}` (canonical) or a bare number of milliseconds (legacy).
    private static func dateMilliseconds(_ content: Any, fail: (String) -> DocumentFileError) throws(DocumentFileError) -> Int64 {
        if let text = content as? String {
            for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = options
                if let date = formatter.date(from: text) {
                    return Int64((date.timeIntervalSince1970 * 1000).rounded())
                }
            }
            throw fail("$date \"\(text)\" is no ISO 8601 time")
        }
        if let wrapped = content as? [String: Any], let text = wrapped["$numberLong"] as? String, let number = Int64(text) {
            return number
        }
        if let number = content as? NSNumber, String(cString: number.objCType) != "c" {
            return number.int64Value
        }
        throw fail("$date must be an ISO 8601 string or {\"$numberLong\": ...}")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
