import PostgresClient

/// A schema of one run's own for the big tables it works in (the stage, the merge's match, the
/// lists' diff), first on the search path until the run's transaction ends. Its tables are
/// unlogged rather than temporary: PostgreSQL never reads a temporary table with parallel workers,
/// and the joins of a million staged rows with the stored ones take the server's other cores
/// while crubatch waits. It is created inside the transaction, so a run that dies leaves nothing,
/// and dropped before it commits; its name holds the session's server process id, so runs at once
/// never share it.
struct WorkSchema {
    let connection: PostgresConnection
    let name: String

    /// Creates the schema and puts it first on the search path for the rest of the transaction.
    static func create(on connection: PostgresConnection) throws -> WorkSchema {
        let session = try connection.query("""
            select 'crubatch_work_' || pg_backend_pid(), current_user::text, current_database()::text
            """).rows[0].decode((String, String, String).self)
        let schema = WorkSchema(connection: connection, name: session.0)
        do {
            try connection.execute("create schema \(identifier: schema.name)")
        } catch {
            guard error.sqlState == "42501" else { throw error }
            throw refusal(user: session.1, database: session.2)
        }
        try connection.query("select set_config('search_path', \(schema.name) || ', ' || current_setting('search_path'), true)")
        return schema
    }

    /// What a user who may not create schemas is told.
    private static func refusal(user: String, database: String) -> CruBatchError {
        .privileges("the database user \(user) may not create schemas in \(database), where each import and place"
            + " works in one of its own; an administrator can allow it: grant create on database \(database) to \(user)")
    }

    /// Drops the schema and whatever is left in it.
    func drop() throws {
        try connection.execute("drop schema \(identifier: name) cascade")
    }
}
