extension Migration {
    /// The rows a run updates are kept as rows too, before and after, not as JSON images: a re-import
    /// changing 100,000 of a million students spent 2.0 s of its update turning the 200,000 rows
    /// into `jsonb` and filing them in the log, against 0.5 s to copy them as they are.
    ///
    /// - Each logged table `t` gets `run_updated_t`: four columns of the log's own, `change_run`,
    ///   `change_id` (one per change, from the log's sequence, so changes keep their order across
    ///   tables and kinds of change), `changed_at` and `change_after` (false for the row before the
    ///   change, true for the row after it), then `t`'s columns, as `run_inserted_t` has them. Two rows
    ///   per change, found together by their run and id. Like the copies of inserted rows, it has no
    ///   index: `undo` and `runs show` read one run's rows, rarely.
    /// - The update trigger pairs the statement's old and new rows by primary key, as it did, gives
    ///   each pair its change id, and copies both halves by column name.
    /// - `run_changes` reads each pair as an image before and after (in the reader's time zone), with
    ///   the operation the images say (`update`, `archive`, `end` or `restore`), computed when read.
    /// - Every `crubatch migrate` brings both copies of every logged table in line with the table
    ///   (`sync_run_copies()`, which takes over from `sync_run_inserted_tables()`).
    /// - Update images already in the log stay in `run_images`, read as before; deletes and the rows
    ///   writers file by hand stay images.
    static let updatedRowsAsRows = Migration(version: 36, name: "updated rows as rows", sql: """
    create function run_updated_table(logged text) returns text immutable language sql as $$
        select 'run_updated_' || logged
    $$;

    -- How many columns of the log's own a copy of `logged` starts with.
    create function run_copy_meta_columns(logged text, copy text) returns int immutable language sql as $$
        select case when copy = run_updated_table(logged) then 4 else 3 end
    $$;

    -- The columns `logged` and its copy `copy` share, in the table's order, as a list for SQL, each
    -- written after `prefix` (a table's alias and a dot).
    create function run_copy_columns(logged regclass, copy text, prefix text default '') returns text stable language sql as $$
        select string_agg(prefix || quote_ident(a.attname), ', ' order by a.attnum) from pg_attribute a
        where a.attrelid = logged and a.attnum > 0 and not a.attisdropped
        and exists (select from pg_attribute c
                    where c.attrelid = copy::regclass and c.attname = a.attname and not c.attisdropped
                    and c.attnum > run_copy_meta_columns((select relname from pg_class where oid = logged), copy))
    $$;

    -- `run_changes`: the images kept as they are, then every copy of inserted rows as insert images,
    -- then every copy of updated rows as images before and after.
    create or replace function create_run_changes_view() returns void language plpgsql as $$
    begin
        execute 'create or replace view run_changes as
            select id, run_id, table_name, row_id, operation, before, after, changed_at from run_images'
            || (select string_agg(format(
                   ' union all select i.change_id, i.change_run, %1$L::text, %2$s, ''insert''::text, null::jsonb,
                         to_jsonb(i) - ''{change_run,change_id,changed_at}''::text[], i.changed_at from %3$I i
                     union all select b.change_id, b.change_run, %1$L::text, a.row_id,
                         run_change_operation(b.image, a.image), b.image, a.image, b.changed_at
                     from (select u.change_run, u.change_id, u.changed_at,
                                  to_jsonb(u) - ''{change_run,change_id,changed_at,change_after}''::text[] as image
                           from %4$I u where not u.change_after) b
                     join (select u.change_run, u.change_id, %5$s as row_id,
                                  to_jsonb(u) - ''{change_run,change_id,changed_at,change_after}''::text[] as image
                           from %4$I u where u.change_after) a using (change_run, change_id)',
                   c.relname, case when c.has_id then 'i.id' else 'null::bigint' end,
                   run_inserted_table(c.relname), run_updated_table(c.relname),
                   case when c.has_id then 'u.id' else 'null::bigint' end), '' order by c.relname)
                from run_logged_tables() t
                join lateral (select c.relname, exists (select from pg_attribute a where a.attrelid = c.oid
                                                        and a.attname = 'id' and not a.attisdropped) as has_id
                              from pg_class c where c.oid = t) c on true);
    end $$;

    -- Brings both copies of every logged table in line with the table: a new logged table gets
    -- them, a column added is added, one dropped is dropped, one of another type takes the new type
    -- (a value that does not convert stops the migration that changed it). Run by every migrate.
    create function sync_run_copies() returns void language plpgsql as $$
    declare
        logged record;
        copy text;
        meta int;
        change record;
        created boolean := false;
    begin
        for logged in select c.oid, c.relname from run_logged_tables() t join pg_class c on c.oid = t loop
            foreach copy in array array[run_inserted_table(logged.relname), run_updated_table(logged.relname)] loop
                meta := run_copy_meta_columns(logged.relname, copy);
                if to_regclass(copy) is null then
                    execute format('create table %I (change_run bigint not null, change_id bigint not null,
                                    changed_at timestamptz not null%s)',
                                   copy, case when meta = 4 then ', change_after boolean not null' else '' end);
                    created := true;
                end if;
                for change in
                    select attname, format_type(a.atttypid, a.atttypmod) as type,
                           a.attnum is null as gone, c.attnum is null as missing
                    from (select attname, attnum, atttypid, atttypmod from pg_attribute
                          where attrelid = logged.oid and attnum > 0 and not attisdropped) a
                    full join (select attname, attnum, atttypid, atttypmod from pg_attribute
                               where attrelid = copy::regclass and attnum > meta and not attisdropped) c using (attname)
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
        end loop;
        if created then
            perform create_run_changes_view();
        end if;
    end $$;

    drop function sync_run_inserted_tables();

    -- Each changed row's old and new versions, paired by primary key, under one change id.
    create or replace function record_run_update() returns trigger language plpgsql as $$
    declare
        run bigint := nullif(current_setting('crubatch.run_id', true), '')::bigint;
        key text;
        copy text := run_updated_table(tg_table_name);
    begin
        if run is null then
            return null;
        end if;
        select string_agg(quote_ident(a.attname), ', ') into key
        from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = tg_relid and i.indisprimary;
        execute format($sql$
            with pairs as materialized (
                select nextval('run_images_id_seq') as change_id, %1$s from old_rows join new_rows using (%1$s)),
            befores as (insert into %2$I (change_run, change_id, changed_at, change_after, %3$s)
                        select $1, p.change_id, now(), false, %4$s from old_rows o join pairs p using (%1$s))
            insert into %2$I (change_run, change_id, changed_at, change_after, %3$s)
            select $1, p.change_id, now(), true, %5$s from new_rows n join pairs p using (%1$s)
            $sql$, key, copy, run_copy_columns(tg_relid, copy), run_copy_columns(tg_relid, copy, 'o.'),
            run_copy_columns(tg_relid, copy, 'n.')) using run;
        return null;
    end $$;

    select sync_run_copies();
    """)
}
