extension Migration {
    /// `queue_join_notifications()` inserts the join messages of memberships a writer adds as they
    /// are, without arbitrating their dedupe keys (`on conflict`): such a membership's id is fresh
    /// from its sequence, so no message names it yet. The arbitration was a seventh of inserting the
    /// 5,941 memberships and 11,882 messages of `place` of 10,000 answers.
    ///
    /// An undo puts memberships back under their old ids, and their messages may be queued or sent
    /// already: during an undo (`crubatch.undoing`) the keys are arbitrated as before, so nobody is
    /// told twice.
    static let newMembershipsToldDirectly = Migration(version: 31, name: "new memberships told directly", sql: """
    create or replace function queue_join_notifications() returns trigger language plpgsql as $$
    declare
        queued integer;
    begin
        if current_setting('crubatch.undoing', true) is distinct from 'on' then
            \(joinMessagesQueued(indent: "        "));
        else
            \(joinMessagesQueued(indent: "        "))
            on conflict (dedupe_key) do nothing;
        end if;
        get diagnostics queued = row_count;
        if queued > 0 and notification_initial_status() = 'pending' then
            perform pg_notify('crubatch_notifications', 'memberships');
        end if;
        return null;
    end $$;
    """)
}
