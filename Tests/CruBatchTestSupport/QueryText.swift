import PostgresClient

/// Results as plain text, for tests that compare whole tables of values at a glance.
extension QueryResult {
    /// Every row's cells as text (nil for NULL).
    public var texts: [[String?]] { rows.map(\.values) }

    /// The first cell's text, nil when there is no row or it is NULL.
    public var text: String? { rows.first?.values.first ?? nil }
}

extension PostgresRow {
    /// A cell's text (nil for NULL), for tests that read a value without caring about its type.
    public subscript(index: Int) -> String? { values[index] }
}
