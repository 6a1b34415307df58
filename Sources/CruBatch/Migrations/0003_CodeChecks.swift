extension Migration {
    /// Every code follows `CodeRule` (1-63 of a-z, 0-9, `.`, `_`, `-`, starting with a letter or a
    /// digit, no `..`), so that a code the app or SQL writes is as safe a file name as one `import`
    /// checked. Rows that break the rule are not changed: the migration stops and names them.
    static let codeChecks = Migration(version: 3, name: "code checks", sql: #"""
    create function is_valid_code(code text) returns boolean immutable language sql as $$
        select code ~ '^[a-z0-9][a-z0-9._-]{0,62}$' and strpos(code, '..') = 0
    $$;

    do $$
    declare
        table_name text;
        ids text;
        offending text[] := '{}';
    begin
        foreach table_name in array array['campuses', 'ministries', 'ministry_teams', 'community_groups', 'events',
                                           'summer_missions'] loop
            execute format('select string_agg(id::text, '', '' order by id) from %I where not is_valid_code(code)', table_name)
                into ids;
            if ids is not null then
                offending := offending || format('%s (id %s)', table_name, ids);
            end if;
        end loop;
        if cardinality(offending) > 0 then
            raise exception 'rows whose code breaks the code rule: %', array_to_string(offending, '; ')
                using errcode = 'check_violation',
                      detail = 'a code is 1-63 lower-case letters a-z, digits, ''.'', ''_'' or ''-'', starting with a '
                               'letter or a digit, without ''..''; change these codes, then run crubatch migrate again';
        end if;
    end $$;

    alter table campuses add constraint campuses_code_rule check (is_valid_code(code));
    alter table ministries add constraint ministries_code_rule check (is_valid_code(code));
    alter table ministry_teams add constraint ministry_teams_code_rule check (is_valid_code(code));
    alter table community_groups add constraint community_groups_code_rule check (is_valid_code(code));
    alter table events add constraint events_code_rule check (is_valid_code(code));
    alter table summer_missions add constraint summer_missions_code_rule check (is_valid_code(code));
    """#)
}
