import PostgresClient

extension PostgresQuery.StringInterpolation {
    /// SQL text that the catalog still builds as a `String` (merge, resolve and export SQL, and the
    /// checks and notices built from them), spliced in as it is. It holds only names and SQL from
    /// the catalog, never a cell or an argument; new code builds an `SQLFragment` instead.
    mutating func appendInterpolation(unescaped text: String) {
        appendInterpolation(PostgresQuery(unsafeSQL: text))
    }
}
