import Foundation

/// One value of a MongoDB document, as a BSON file holds it and as Extended JSON v2 writes it, so a
/// `mongodump` folder and a `mongoexport` file of the same data read to equal documents.
///
/// Relaxed Extended JSON writes 32- and 64-bit integers alike, so both are `int`; a double stays a
/// double (mongoexport writes `2.0`, never `2`).
public enum BSONValue: Sendable, Equatable {
    case double(Double)
    case string(String)
    case document(BSONDocument)
    case array([BSONValue])
    case binary(subtype: UInt8, Data)
    /// The 24 lower-case hex digits of an ObjectId.
    case objectID(String)
    case bool(Bool)
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case date(Int64)
    case null
    case regularExpression(pattern: String, options: String)
    case int(Int64)
    case timestamp(seconds: UInt32, increment: UInt32)
    /// A Decimal128 in its string form (`"12.50"`).
    case decimal(String)
    /// A type old drivers wrote and nothing here reads (undefined, symbol, code, min/max key).
    case unsupported(String)

    /// The BSON type's name, for messages (`string`, `objectId`, `date` ...).
    public var typeName: String {
        switch self {
        case .double: "double"
        case .string: "string"
        case .document: "object"
        case .array: "array"
        case .binary: "binData"
        case .objectID: "objectId"
        case .bool: "bool"
        case .date: "date"
        case .null: "null"
        case .regularExpression: "regex"
        case .int: "int"
        case .timestamp: "timestamp"
        case .decimal: "decimal"
        case .unsupported(let name): name
        }
    }

    /// The date as a `Date`, when the value is one.
    public var date: Date? {
        guard case .date(let milliseconds) = self else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// A MongoDB document: its fields by name. Field order is not kept, because Extended JSON read
/// through Foundation does not keep it and nothing here depends on it.
public struct BSONDocument: Sendable, Equatable {
    public var fields: [String: BSONValue]

    public init(_ fields: [String: BSONValue] = [:]) {
        self.fields = fields
    }

    public subscript(name: String) -> BSONValue? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    /// The document's `_id` as text: the hex of an ObjectId, else the value's own text.
    public var id: String? {
        switch fields["_id"] {
        case .objectID(let hex): hex
        case .string(let text): text
        case .int(let number): String(number)
        default: nil
        }
    }
}

/// Why a file of documents could not be read: the file and, when known, the document's number
/// (1-based) or the line of a JSON lines file.
public struct DocumentFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// The document's number in the file, or the line of a JSON lines file; nil for the whole file.
    public let position: Int?
    public let message: String

    public init(path: String, position: Int?, message: String) {
        self.path = path
        self.position = position
        self.message = message
    }

    public var description: String { "\(path)\(position.map { ":\($0)" } ?? ""): \(message)" }
}
