import Foundation

/// The JSON object `text` holds (a command's `--format json` document), or an error saying what it
/// held instead: the one reader of JSON documents every test shares.
public func jsonObject(_ text: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        throw TestSetupError("not a JSON object: \(text.prefix(500))")
    }
    return object
}
