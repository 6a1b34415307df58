import PostgresClient

/// The ids a big first load gives its new rows before inserting them: the staged row of line L
/// gets id L + `offset`, from a block of the table's identity sequence reserved for the load.
///
/// Knowing each row's id from its line lets the load insert the rows' lists (a student's
/// ministries) straight from the staging table: without it, every list was joined back to its
/// row through the key (a million emails hashed and compared a second time). The block spans the
/// staged lines from the first to the last, so lines the load does not insert (the header, a
/// rejected row, the extra lines of a quoted newline) are gaps in the ids, as a rolled-back insert
/// leaves gaps in any identity.
///
/// Only a load holding its table locked against other writers reserves a block (`BulkLoadKeys`
/// is the proof it asks for): no other insert can draw from the sequence between the reservation
/// and the load's own insert. An id taken from the sequence by hand in that window would collide
/// with the block, and the load then fails on the primary key, whole.
struct LineIDs {
    /// What a staged line adds up to its row's id.
    let offset: Int

    /// Reserves the block of ids for the staged lines of the table `lock` holds; nil when `stage` is
    /// empty or the table's `id` draws from no sequence (the load then finds each row by its key).
    static func reserve(in lock: BulkLoadKeys, connection: PostgresConnection) throws -> LineIDs? {
        let rows = try connection.query("""
            with lines as (select min(line) as first, max(line) as last from stage),
                 sequence as (select pg_get_serial_sequence(\(lock.lockedTable), 'id') as name),
                 next as (select nextval(name) as id from sequence, lines where first is not null and name is not null)
            select next.id - lines.first, setval(sequence.name, next.id + lines.last - lines.first)
            from next, lines, sequence
            """).rows
        guard let row = rows.first else { return nil }
        return LineIDs(offset: try row.decode(Int.self, 0))
    }

    /// The id of the row staged as `n` (SQL over the resolved staged row).
    var idOfStagedRow: SQLFragment { "n.line + \(offset)" }
}
