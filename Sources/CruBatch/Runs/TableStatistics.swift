import PostgresClient

/// Statistics for the tables a writer (an import, `place`, `rides pair`) wrote, where PostgreSQL has
/// none or has them from a table less than half the size.
///
/// The command that follows in a cron job (a nightly export, `notify`) is planned from them, and
/// autovacuum only gets to a table a minute or more later. Without statistics the planner guesses a
/// few dozen people and two hundred lists, and joined every person to every list: a nightly export
/// of 100,000 students right after their first load took 208 s instead of 0.4 s, and one right
/// after `place` had put 10,000 students in groups 34 s instead of 1.3 s. A sample of 3,000 rows
/// (`default_statistics_target` 10, as for an import's staging table) costs about 20 ms at 100,000
/// rows and is enough for such plans; autovacuum's analyze replaces it once the table has changed
/// by a tenth again.
enum TableStatistics {
    /// Analyzes those of `tables` never analyzed, or more than twice the size they were when last
    /// analyzed, inside the writer's transaction (it rolls back with the writes). Only a table's
    /// owner may analyze it; another role's writes leave them to autovacuum.
    static func refresh(_ tables: [String], connection: PostgresConnection) throws {
        let outgrown = try connection.query("""
            select c.relname::text from pg_class c
            where c.oid = any(\(tables)::regclass[]) and pg_has_role(c.relowner, 'usage') and pg_relation_size(c.oid) > 0
            and (c.reltuples < 0 or pg_relation_size(c.oid) > 2 * c.relpages::bigint * current_setting('block_size')::bigint)
            order by 1
            """).rows.map { try $0.decode(String.self, 0) }
        try sample(outgrown, connection: connection)
    }

    /// Analyzes `tables` from a sample of 3,000 rows each.
    static func sample(_ tables: [String], connection: PostgresConnection) throws {
        guard !tables.isEmpty else { return }
        let names = SQLFragment(joining: tables.map(SQLFragment.init(identifier:)), separator: ", ")
        try connection.script("set local default_statistics_target = 10; analyze \(names.sql); reset default_statistics_target")
    }
}
