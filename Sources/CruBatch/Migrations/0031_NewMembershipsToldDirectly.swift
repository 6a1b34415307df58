extension Migration {
    /// `queue_join_notifications()` inserts the join messages of memberships a writer adds as they
    /// are, without arbitrating their dedupe keys (`on conflict`): such a membership's id is fresh
    /// from its sequence, so no message names it yet. The arbitration was about a tenth of inserting
    /// the 5,941 memberships and 11,882 messages of `place` of 10,000 answers.
    ///
    /// An undo puts memberships back under their old ids, and their messages may be queued or sent
    /// already: during an undo (`crubatch.undoing`) the keys are arbitrated as before, so nobody is
    /// told twice.
    static let newMembershipsToldDirectly = Migration(version: 31, name: "new memberships told directly", sql: """
    \(queueJoinNotificationsFunction(queueing: """
        if current_setting('crubatch.undoing', true) is distinct from 'on' then
                \(joinMessagesQueued(indent: "        "));
            else
                \(joinMessagesQueued(indent: "        "))
                on conflict (dedupe_key) do nothing;
            end if;
        """))
    """)
}
