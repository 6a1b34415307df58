extension Migration {
    /// Terms join the change log of migration 5, so `runs show` lists what an import of terms changed
    /// and `undo` puts it back (an archive by `--sync` included), as for every other kind.
    static let termsChangeLog = Migration(version: 7, name: "terms in the change log", sql: #"""
    create trigger terms_record_run_insert after insert on terms referencing new table as new_rows
        for each statement execute function record_run_insert();
    create trigger terms_record_run_update after update on terms referencing old table as old_rows new table as new_rows
        for each statement execute function record_run_update();
    create trigger terms_record_run_delete after delete on terms referencing old table as old_rows
        for each statement execute function record_run_delete();
    """#)
}
