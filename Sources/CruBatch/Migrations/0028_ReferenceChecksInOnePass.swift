extension Migration {
    /// `check_references()` checks each reference of a statement's rows in one pass. It counted the
    /// distinct values the statement names in a second pass of its own, which sorted every row's
    /// value again (a locale-ordered sort for `kind`): a fifth of the check, for each of the six
    /// references of every statement that queues messages. Now the rows named are locked as before,
    /// in key order, and one query counts both the distinct values and the rows it held.
    static let referenceChecksInOnePass = Migration(version: 28, name: "reference checks in one pass", sql: """
    \(checkReferencesFunction(replacing: true, lockingStatementRows: statementReferencesLockedInOnePass))
    """)

    /// Per distinct value, its row locked if it is there; counted: the rows held, the values wanted.
    private static let statementReferencesLockedInOnePass = """
                        execute format($check$
                            select count(locked.present), count(*)
                            from (select distinct %1$I as key from new_rows where %1$I is not null order by 1) w
                            left join lateral (select true as present from %2$I p where p.%3$I = w.key for key share) locked on true
                            $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) into held, wanted;
        """
}
