extension Migration {
    /// The rows a run inserts are kept as rows, not as JSON images: a first load of 100,000 students
    /// spent a third of its time turning its 243,000 new rows into `jsonb` and indexing them in the
    /// change log.
    ///
    /// - Each logged table `t` gets `run_inserted_t`: three columns of the log's own, `change_run`
    ///   (the run), `change_id` (the change's id, from the log's sequence, so changes keep their order
    ///   across tables) and `changed_at`, then `t`'s columns without their constraints or defaults.
    ///   It has no index: even a BRIN index on `change_run` cost a tenth of a first load, while `undo`
    ///   and `runs show`, which read one run's rows, are rare and a scan of the copies serves them.
    /// - The insert trigger copies the statement's new rows there as they are, by column name (the
    ///   columns the two share). On every `crubatch migrate`, `sync_run_inserted_tables()` brings
    ///   the copies in line with their tables: a table logged from then on gets its copy (and the
    ///   view its rows), a column added, dropped or given another type in `t` is in its copy too. A
    ///   writer never changes a copy's shape, so two of them never race to.
    /// - The images of updates and deletes, and the rows writers file by hand, stay as they were, in
    ///   `run_images` (the table `run_changes` was).
    /// - `run_changes` is now a view with the columns it had: `run_images`, and every inserted row as
    ///   its image (`to_jsonb` when read, in the reader's time zone: `undo` and `runs show` read in
    ///   UTC). `forget` scrubs `run_images` and the copies.
    /// - Insert images already in the log become rows of their tables.
    static let insertedRowsAsRows = Migration(version: 25, name: "inserted rows as rows", sql: """
    alter table run_changes rename to run_images;
    alter sequence run_changes_id_seq rename to run_images_id_seq;
    alter table run_images rename constraint run_changes_pkey to run_images_pkey;
    alter table run_images rename constraint run_changes_operation_check to run_images_operation_check;

    create function run_inserted_table(logged text) returns text immutable language sql as $$
        select 'run_inserted_' || logged
    $$;

    -- The tables whose inserts the change log records (those with the insert trigger), by name.
    create function run_logged_tables() returns setof regclass stable language sql as $$
        select c.oid::regclass from pg_class c
        where c.oid in (select t.tgrelid from pg_trigger t join pg_proc p on p.oid = t.tgfoid
                        where p.proname = 'record_run_insert')
        order by c.relname
    $$;

    -- The columns `logged` and its copy share, in the table's order, as a list for SQL.
    create function run_inserted_columns(logged regclass) returns text stable language sql as $$
        select string_agg(quote_ident(a.attname), ', ' order by a.attnum) from pg_attribute a
        where a.attrelid = logged and a.attnum > 0 and not a.attisdropped
        and exists (select from pg_attribute c
                    where c.attrelid = run_inserted_table((select relname from pg_class where oid = logged))::regclass
                    and c.attname = a.attname and c.attnum > 3 and not c.attisdropped)
    $$;

    -- Brings every logged table's copy in line with the table: a new logged table gets its copy, a
    -- column added is added, one dropped is dropped, one of another type takes the new type (a
    -- value that does not convert stops the migration that changed it). Run by every migrate.
    create function sync_run_inserted_tables() returns void language plpgsql as $$
    declare
        logged record;
        copy text;
        change record;
        created boolean := false;
    begin
        for logged in select c.oid, c.relname from run_logged_tables() t join pg_class c on c.oid = t loop
            copy := run_inserted_table(logged.relname);
            if to_regclass(copy) is null then
                execute format('create table %I (change_run bigint not null, change_id bigint not null,
                                changed_at timestamptz not null)', copy);
                created := true;
            end if;
            for change in
                select attname, format_type(a.atttypid, a.atttypmod) as type,
                       a.attnum is null as gone, c.attnum is null as missing
                from (select attname, attnum, atttypid, atttypmod from pg_attribute
                      where attrelid = logged.oid and attnum > 0 and not attisdropped) a
                full join (select attname, attnum, atttypid, atttypmod from pg_attribute
                           where attrelid = copy::regclass and attnum > 3 and not attisdropped) c using (attname)
                where a.attnum is null or c.attnum is null or (a.atttypid, a.atttypmod) <> (c.atttypid, c.atttypmod)
                order by a.attnum
            loop
                if change.gone then
                    execute format('alter table %I drop column %I', copy, change.attname);
                elsif change.missing then
                    execute format('alter table %I add column %I %s', copy, change.attname, change.type);
                else
                    execute format('alter table %I alter column %I type %s using %I::%s',
                                   copy, change.attname, change.type, change.attname, change.type);
                end if;
            end loop;
        end loop;
        if created then
            perform create_run_changes_view();
        end if;
    end $$;

    -- `run_changes`: the images kept as they are, then every copy's rows as insert images.
    create function create_run_changes_view() returns void language plpgsql as $$
    begin
        execute 'create or replace view run_changes as
            select id, run_id, table_name, row_id, operation, before, after, changed_at from run_images'
            || (select string_agg(format(
                   ' union all select i.change_id, i.change_run, %L::text, %s, ''insert''::text, null::jsonb,
                         to_jsonb(i) - ''{change_run,change_id,changed_at}''::text[], i.changed_at from %I i',
                   c.relname,
                   case when exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'id'
                                     and not a.attisdropped) then 'i.id' else 'null::bigint' end,
                   run_inserted_table(c.relname)), '' order by c.relname)
                from run_logged_tables() t join pg_class c on c.oid = t);
    end $$;

    create or replace function record_run_insert() returns trigger language plpgsql as $$
    declare
        run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
        columns text;
    begin
        if run is not null then
            columns := run_inserted_columns(tg_relid);
            execute format('insert into %I (change_run, change_id, changed_at, %s)
                            select $1, nextval(''run_images_id_seq''), now(), %s from new_rows',
                           run_inserted_table(tg_table_name), columns, columns) using run;
        end if;
        return null;
    end $$;

    -- The update and delete triggers' functions stay as they are, writing to the table's new name.
    do $$
    declare
        logger text;
        definition text;
    begin
        foreach logger in array array['record_run_update', 'record_run_delete'] loop
            definition := pg_get_functiondef(logger::regproc);
            if position('insert into run_changes' in definition) = 0 then
                raise exception '% does not write run_changes as expected', logger;
            end if;
            execute replace(definition, 'insert into run_changes', 'insert into run_images');
        end loop;
    end $$;

    select sync_run_inserted_tables();

    -- The insert images already logged become rows of their tables' copies.
    do $$
    declare
        logged text;
        columns text;
    begin
        for logged in select distinct table_name from run_images
                      where operation = 'insert' and to_regclass(run_inserted_table(table_name)) is not null
        loop
            columns := run_inserted_columns(logged::regclass);
            execute format('insert into %I (change_run, change_id, changed_at, %s)
                            select change_run, change_id, changed_at, %s
                            from (select i.run_id as change_run, i.id as change_id, i.changed_at, r.*
                                  from run_images i, jsonb_populate_record(null::%I, i.after) r
                                  where i.table_name = %L and i.operation = ''insert'') image order by change_id',
                           run_inserted_table(logged), columns, columns, logged, logged);
            execute format('delete from run_images where table_name = %L and operation = ''insert''', logged);
        end loop;
    end $$;
    """)
}
