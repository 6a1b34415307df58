import BSONDocuments

/// One document of the old app's dump, as the migration reads it: every field it looks at is
/// recorded, so that the fields it never read can be listed with how many documents carry them
/// (`unreadFields`). Nothing of a document goes unmentioned: a field is migrated, or reported as
/// not read.
final class KeystoneDocument {
    /// The collection, as the migration names it (`campuses` for Keystone's `campus`).
    let collection: String
    /// The collection as the dump names it, which diagnostics use.
    let shownCollection: String
    let fields: BSONDocument
    /// The paths looked at: `name` (the whole field) or `location.suburb` (one field inside it).
    private var read: Set<String> = ["_id"]

    init(collection: String, shownAs shownCollection: String? = nil, fields: BSONDocument) {
        self.collection = collection
        self.shownCollection = shownCollection ?? collection
        self.fields = fields
    }

    /// The document's `_id` as text.
    var id: String? { fields.id }

    /// `collection/_id`, how diagnostics name the document (`campus/5a1f...`).
    var name: String { "\(shownCollection)/\(id ?? "?")" }

    /// The value at `path` (`name.first` looks inside `name`), recorded as read.
    subscript(_ path: String) -> BSONValue? {
        read.insert(path)
        var value: BSONValue? = .document(fields)
        for part in path.split(separator: ".") {
            guard case .document(let document) = value else { return nil }
            value = document[String(part)]
        }
        return value
    }

    /// Whether the field at `path` holds anything, without reading it (a choice between an old
    /// and a new shape).
    func has(_ path: String) -> Bool {
        var value: BSONValue? = .document(fields)
        for part in path.split(separator: ".") {
            guard case .document(let document) = value else { return false }
            value = document[String(part)]
        }
        if case .null = value { return false }
        return value != nil
    }

    /// The paths of this document's fields that were never read: a field never looked at, or the
    /// fields inside a sub-document that were not, when some of it was.
    var unreadFields: [String] {
        var unread: [String] = []
        func walk(_ document: BSONDocument, prefix: String) {
            for (key, value) in document.fields {
                let path = prefix + key
                if read.contains(path) { continue }
                if case .document(let inner) = value, read.contains(where: { $0.hasPrefix(path + ".") }) {
                    walk(inner, prefix: path + ".")
                } else {
                    unread.append(path)
                }
            }
        }
        walk(fields, prefix: "")
        return unread.sorted()
    }
}
