extension Migration {
    /// The outbox keeps only the indexes a query uses. Every message queued updates each index it
    /// falls in, and `rides pair` at 10,000 requests queues 30,000 at once; three of them were a
    /// seventh of that command's time in the database and served no query:
    /// - `notifications_due` (pending and failed messages by when they fall due): `notify` claims
    ///   the due messages in id order through `notifications_pending_id`, and nothing reads
    ///   failed messages by time;
    /// - `notifications_pending_recipient` (pending messages by recipient): the queries by recipient
    ///   (a person merged, erased or deleted) ask for messages of every status, which a partial
    ///   index cannot answer;
    /// - `notifications_membership_id` held a row for every message, also the many with no
    ///   membership (ride messages, newcomers); it now holds the messages about a membership, which
    ///   are the ones a query by membership can find.
    static let outboxIndexesInUse = Migration(version: 30, name: "outbox indexes in use", sql: """
    drop index notifications_due, notifications_pending_recipient, notifications_membership_id;
    create index notifications_membership_id on notifications (membership_id) where membership_id is not null;
    """)
}
