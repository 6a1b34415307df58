import Foundation

/// The one JSON encoder setup every document uses: pretty, keys sorted (so two runs diff cleanly),
/// snake_case field names, slashes unescaped (paths and URLs read as they are).
enum JSONOutput {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// The decoder that reads what `encoder()` wrote (a manifest read back).
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// The document as text; our report types hold only strings, numbers and booleans, which always encode.
    static func encode(_ value: some Encodable) -> String {
        guard let data = try? encoder().encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
