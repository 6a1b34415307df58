/// What a migration did with every document of the old app's dump, collection by collection, so
/// that nothing vanishes without a word: each document read is migrated, refused (counted by
/// reason) or deliberately not migrated (counted by reason), and every field of a migrated
/// document that no row holds is listed with how many documents carry it.
public struct KeystoneReconciliation: Sendable, Encodable, Equatable {
    /// One collection's account.
    public struct Collection: Sendable, Encodable, Equatable {
        public let collection: String
        public var read = 0
        public var migrated = 0
        /// Refused documents by reason.
        public var refused: [String: Int] = [:]
        /// Documents not migrated on purpose, by reason.
        public var notMigrated: [String: Int] = [:]
        /// The fields of migrated documents that no row holds (`location.geo`), with how many
        /// documents carry each; `*` for a collection crubatch has no kind for.
        public var unreadFields: [String: Int] = [:]

        public var refusedCount: Int { refused.values.reduce(0, +) }
        public var notMigratedCount: Int { notMigrated.values.reduce(0, +) }

        private enum CodingKeys: String, CodingKey {
            case collection, read, migrated, refused, notMigrated = "not_migrated", unreadFields = "unread_fields"
        }
    }

    public var collections: [Collection]

    /// The account as text: a table of counts, then the reasons and the fields not read.
    public var text: String {
        var lines = ["reconciliation: every document read is migrated, refused or not migrated"]
        var table = TextTable(headers: ["collection", "read", "migrated", "refused", "not migrated"],
                              alignments: [.left, .right, .right, .right, .right])
        for collection in collections {
            table.append([collection.collection, String(collection.read), String(collection.migrated),
                          String(collection.refusedCount), String(collection.notMigratedCount)])
        }
        lines.append(table.text)
        func reasons(_ title: String, _ counts: (Collection) -> [String: Int]) {
            let found = collections.flatMap { collection in
                counts(collection).sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "  \(collection.collection): \($0.value) \($0.key)" }
            }
            if !found.isEmpty { lines += [title] + found }
        }
        reasons("refused:", \.refused)
        reasons("not migrated:", \.notMigrated)
        let unread = collections.filter { !$0.unreadFields.isEmpty }.map { collection in
            "  \(collection.collection): " + collection.unreadFields.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
        }
        if !unread.isEmpty { lines += ["fields not read (documents holding them):"] + unread }
        return lines.joined(separator: "\n")
    }
}
