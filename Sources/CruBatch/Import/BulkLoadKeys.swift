import PostgresClient

/// The foreign keys of the tables a large first load fills, checked once for the whole load instead
/// of row by row.
///
/// PostgreSQL checks a foreign key with one lookup (and a row lock on the parent) per inserted row,
/// which is about 40% of loading a million students. When a first load brings many rows into a table
/// holding fewer, the loader drops those keys inside its transaction and adds them back after the
/// inserts, which checks every row in one join. The definitions are read from the catalog, so what
/// is added back is what was there; the transaction's failure or rollback (a dry run) keeps them.
///
/// An import's merge also drops the tables' secondary indexes (those no constraint owns: an email's
/// unique index, a campus's) and builds them again after its inserts: one sort of each index's keys
/// instead of an insertion per row. A uniqueness an import's checks missed still fails the build,
/// and the load with it.
///
/// The price is a lock: until the load commits, other sessions wait to read the tables concerned and
/// the ones they reference (campuses, ministries ...). So the keys are only dropped when the lock is
/// granted within `lockWait` (else the load checks row by row, as a small one does) and when the role
/// owns the tables.
struct BulkLoadKeys {
    /// The fewest new rows for which a load checks its keys at the end.
    static let minimumRows = 10_000
    /// How long the loader waits for the tables' locks before checking row by row instead.
    static let lockWait = "1s"

    /// Whether the load's own table is left with no index but its primary key: then the order of
    /// its inserts matters to no index (an identity key grows at its right edge in any order).
    let onlyPrimaryKeyLeft: Bool
    /// The load's own table, locked against every other writer until the load commits or rolls
    /// back: no other session inserts into it, or draws from its identity, meanwhile.
    let lockedTable: String

    /// Drops the foreign keys of `tables` (and with `indexes`, their secondary indexes) when
    /// `newRows` is at least `minimumRows` and more than `table` (the load's own table) holds; nil
    /// when they stay (too few rows, a lock not granted in time, a role that does not own the
    /// tables), and the load checks row by row. The definitions wait in temp tables for `restore`,
    /// which must come before anything reads the tables by an index dropped.
    static func dropIfWorthIt(table: String, tables: [String], newRows: Int, indexes: Bool = false,
                              connection: PostgresConnection) throws -> BulkLoadKeys? {
        guard newRows >= minimumRows else { return nil }
        let stored = try connection.query(
            "select count(*) from (select from \(identifier: table) limit \(newRows)) t").scalar(Int.self)
        guard stored < newRows else { return nil }
        let lockTimeout = try connection.query("select current_setting('lock_timeout')").scalar(String.self)
        try connection.execute("savepoint bulk_load_keys")
        do throws(PostgresError) {
            try connection.execute("""
                create temp table bulk_load_keys on commit drop as
                select c.conrelid::regclass as rel, c.conname, pg_get_constraintdef(c.oid) as definition
                from pg_constraint c where c.contype = 'f' and c.conrelid = any(\(tables)::regclass[])
                """)
            try connection.execute("""
                create temp table bulk_load_indexes on commit drop as
                select i.indexrelid::regclass as index, pg_get_indexdef(i.indexrelid) as definition
                from pg_index i where \(indexes) and i.indrelid = any(\(tables)::regclass[])
                and not exists (select from pg_constraint c where c.conindid = i.indexrelid)
                """)
            try connection.query("select set_config('lock_timeout', \(lockWait), true)")
            // Whatever keys and indexes it has, the load's own table is held against other writers.
            try connection.execute("lock table \(identifier: table) in exclusive mode")
            try connection.execute(forEachKey("'alter table %s drop constraint %I'"))
            try connection.execute(forEachIndex("'drop index %s'"))
        } catch {
            // 55P03: a lock not granted in time; 42501: the role does not own a table.
            guard error.sqlState == "55P03" || error.sqlState == "42501" else { throw error }
            try connection.execute("rollback to savepoint bulk_load_keys")
            try connection.execute("release savepoint bulk_load_keys")
            return nil
        }
        try connection.query("select set_config('lock_timeout', \(lockTimeout), true)")
        try connection.execute("release savepoint bulk_load_keys")
        let onlyPrimaryKeyLeft = try connection.query("""
            select not exists (select from pg_index i where i.indrelid = \(table)::regclass and not i.indisprimary)
            """).scalar(Bool.self)
        return BulkLoadKeys(onlyPrimaryKeyLeft: onlyPrimaryKeyLeft, lockedTable: table)
    }

    /// A block that runs `statement`, a `format` pattern over a key's table, name and definition, for
    /// each key waiting in `bulk_load_keys`, in one order.
    private static func forEachKey(_ statement: SQLFragment) -> PostgresQuery {
        """
        do $$
        declare k record;
        begin
            for k in select * from bulk_load_keys order by rel::text, conname loop
                execute format(\(unescaped: statement), k.rel, k.conname, k.definition);
            end loop;
        end $$
        """
    }

    /// A block that runs `statement`, a `format` pattern over an index's name and definition, for
    /// each index waiting in `bulk_load_indexes`.
    private static func forEachIndex(_ statement: SQLFragment) -> PostgresQuery {
        """
        do $$
        declare i record;
        begin
            for i in select * from bulk_load_indexes order by index::text loop
                execute format(\(unescaped: statement), i.index, i.definition);
            end loop;
        end $$
        """
    }

    /// Builds the indexes again, then adds the keys back, each checked over its whole table in one
    /// query. Hash joins, whatever the statistics say: a table whose earlier rows were all rolled
    /// back (a dry run) can be recorded as empty, and a nested loop over a million rows would take
    /// hours.
    func restore(connection: PostgresConnection) throws {
        try connection.execute(Self.forEachIndex("'%2$s'"))
        try connection.execute("drop table bulk_load_indexes")
        try PlannerSettings.hashJoins.apply(on: connection) {
            try connection.execute(Self.forEachKey("'alter table %s add constraint %I %s'"))
        }
        try connection.execute("drop table bulk_load_keys")
    }
}
