import PostgresClient

/// A fingerprint of the rows that decide what loading a kind does: its own table, its lists', the
/// tables it owns and the tables it references, each as its row count and a sum over its rows of a
/// hash of where each row version lies (`ctid`) and which transaction wrote it (`xmin`). Every
/// insert, update or delete makes a new row version or removes one, by crubatch, the app or psql,
/// later in the same transaction too, so any of them changes it; a `VACUUM FULL` does too, which
/// only costs one more load. A URL whose content is unchanged is skipped only while this is
/// unchanged too, because only then can loading it again change nothing.
public enum KindTablesState {
    /// The state of the tables `kind` reads and writes, as one line of text.
    public static func current(of kind: Kind, on connection: PostgresConnection) throws -> String {
        let parts = tables(of: kind).map { table -> SQLFragment in
            "(select \(literal: table) || ':' || count(*) || ':' || coalesce(sum(hashtext(ctid::text || xmin::text)), 0) from \(identifier: table))"
        }
        return try connection.query("select \(unescaped: SQLFragment(joining: parts, separator: " || ',' || "))").scalar(String.self)
    }

    /// Every table whose rows a load of `kind` reads or writes, each once, in a fixed order.
    static func tables(of kind: Kind) -> [String] {
        let spec = KindSpec.of(kind)
        var tables = [spec.table] + spec.lists.map(\.relation.childTable) + spec.ownedTables + spec.references.map(\.reference.table)
        if spec.walkIns != nil { tables.append(KindSpec.of(.students).table) }
        var seen: Set<String> = []
        return tables.filter { seen.insert($0).inserted }
    }
}
