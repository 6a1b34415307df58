extension Migration {
    /// `check_references()` checks each reference of a statement's rows in one pass. It counted the
    /// distinct values the statement names in a second pass of its own, which sorted every row's
    /// value again (a locale-ordered sort for `kind`): a fifth of the check, for each of the six
    /// references of every statement that queues messages. Now the rows named are locked as before,
    /// in key order, and one query counts both the distinct values and the rows it held.
    static let referenceChecksInOnePass = Migration(version: 28, name: "reference checks in one pass", sql: #"""
    create or replace function check_references() returns trigger language plpgsql set enable_seqscan = off as $$
    declare
        i integer := 0;
        wanted bigint;
        held bigint;
        missing text;
    begin
        while i < tg_nargs loop
            if tg_level = 'STATEMENT' then
                loop
                    execute format($check$
                        select count(locked.present), count(*)
                        from (select distinct %1$I as key from new_rows where %1$I is not null order by 1) w
                        left join lateral (select true as present from %2$I p where p.%3$I = w.key for key share) locked on true
                        $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) into held, wanted;
                    exit when held = wanted;
                    execute format($check$
                        select min(n.%1$I::text) from new_rows n
                        where n.%1$I is not null and not exists (select from %2$I p where p.%3$I = n.%1$I)
                        $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) into missing;
                    -- None missing now: a row came back between the two queries, and is locked again.
                    exit when missing is not null;
                end loop;
            else
                execute format($check$
                    select ($1).%1$I::text where ($1).%1$I is distinct from ($2).%1$I and ($1).%1$I is not null
                    and not exists (select from %2$I p where p.%3$I = ($1).%1$I for key share)
                    $check$, tg_argv[i], tg_argv[i + 1], tg_argv[i + 2]) using new, old into missing;
            end if;
            if missing is not null then
                raise foreign_key_violation using
                    message = format('insert or update on table "%s" violates its reference to table "%s"',
                                     tg_table_name, tg_argv[i + 1]),
                    detail = format('Key (%s)=(%s) is not present in table "%s".', tg_argv[i], missing, tg_argv[i + 1]);
            end if;
            i := i + 3;
        end loop;
        return null;
    end $$;
    """#)
}
