extension Migration {
    /// One person, one record (docs/ARCHITECTURE.md, "Duplicate people").
    ///
    /// - `fuzzystrmatch` and `unaccent` from PostgreSQL's contrib: one-letter typos (`levenshtein`),
    ///   names with and without accents.
    /// - `given_name_variants`: common English and Spanish given names and the name each is a form of
    ///   (Liz and Beth are Elizabeth, Pepe is José), keyed as `person_name_key` writes names.
    /// - `person_name_key`, `email_canonical`, `email_handle`, `name_deletions` (a name, and the name with
    ///   each letter deleted, for names of 5 letters or more): the keys that `people duplicates` and the
    ///   import's `possible-duplicate` check join people on, so no pair is compared unless it shares one.
    /// - `person_aliases`: an email that once was another person's, merged into this one by `people
    ///   merge`; an import of a row with that email updates the person. Logged for `undo`; `forget`
    ///   deletes the person's aliases.
    static let peopleDuplicates = Migration(version: 21, name: "people duplicates", sql: #"""
    create extension if not exists fuzzystrmatch;
    create extension if not exists unaccent;

    create function person_name_key(name text) returns text language sql immutable parallel safe as $$
        select regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, coalesce(name, ''))), '[^a-z]', '', 'g')
    $$;

    create function email_canonical(email text) returns text language sql immutable parallel safe as $$
        select case when split_part(e, '@', 2) in ('gmail.com', 'googlemail.com')
                    then replace(split_part(split_part(e, '@', 1), '+', 1), '.', '') || '@gmail.com'
                    else split_part(split_part(e, '@', 1), '+', 1) || '@' || split_part(e, '@', 2) end
        from lower(email) e
    $$;

    create function email_handle(email text) returns text language sql immutable parallel safe as $$
        select regexp_replace(split_part(split_part(lower(email), '@', 1), '+', 1), '[^a-z]', '', 'g')
    $$;

    create function name_deletions(name text) returns setof text language sql immutable parallel safe as $$
        select case when i = 0 then name else left(name, i - 1) || substr(name, i + 1) end
        from generate_series(0, length(name)) i where length(name) >= 5
    $$;

    create table given_name_variants (
        variant text primary key check (variant = person_name_key(variant) and variant <> ''),
        given_name text not null check (given_name = person_name_key(given_name) and given_name <> '')
    );

    insert into given_name_variants (variant, given_name) values
        ('liz', 'elizabeth'), ('lizzy', 'elizabeth'), ('beth', 'elizabeth'), ('betsy', 'elizabeth'),
        ('betty', 'elizabeth'), ('eliza', 'elizabeth'), ('libby', 'elizabeth'), ('elisabeth', 'elizabeth'),
        ('bob', 'robert'), ('bobby', 'robert'), ('rob', 'robert'), ('robbie', 'robert'), ('bert', 'robert'),
        ('will', 'william'), ('bill', 'william'), ('billy', 'william'), ('willy', 'william'), ('liam', 'william'),
        ('jim', 'james'), ('jimmy', 'james'), ('jamie', 'james'),
        ('mike', 'michael'), ('mikey', 'michael'), ('mick', 'michael'),
        ('dave', 'david'), ('davey', 'david'), ('dan', 'daniel'), ('danny', 'daniel'),
        ('chris', 'christopher'), ('kit', 'christopher'), ('matt', 'matthew'), ('tom', 'thomas'), ('tommy', 'thomas'),
        ('joe', 'joseph'), ('joey', 'joseph'), ('tony', 'anthony'), ('nick', 'nicholas'), ('nicky', 'nicholas'),
        ('andy', 'andrew'), ('drew', 'andrew'), ('ben', 'benjamin'), ('benny', 'benjamin'),
        ('sam', 'samuel'), ('sammy', 'samuel'), ('alex', 'alexander'), ('zander', 'alexander'),
        ('jon', 'jonathan'), ('johnny', 'john'), ('jack', 'john'), ('steve', 'steven'), ('stephen', 'steven'),
        ('ed', 'edward'), ('eddie', 'edward'), ('ted', 'edward'), ('rick', 'richard'), ('rich', 'richard'),
        ('dick', 'richard'), ('greg', 'gregory'), ('josh', 'joshua'), ('zach', 'zachary'), ('zack', 'zachary'),
        ('nate', 'nathan'), ('nathaniel', 'nathan'), ('tim', 'timothy'), ('timmy', 'timothy'),
        ('pat', 'patrick'), ('charlie', 'charles'), ('chuck', 'charles'), ('hank', 'henry'), ('harry', 'henry'),
        ('jen', 'jennifer'), ('jenny', 'jennifer'), ('jenn', 'jennifer'), ('kate', 'katherine'), ('katie', 'katherine'),
        ('kathy', 'katherine'), ('kat', 'katherine'), ('catherine', 'katherine'), ('kathryn', 'katherine'),
        ('meg', 'margaret'), ('maggie', 'margaret'), ('peggy', 'margaret'), ('becky', 'rebecca'), ('becca', 'rebecca'),
        ('abby', 'abigail'), ('mandy', 'amanda'), ('sue', 'susan'), ('suzy', 'susan'), ('susie', 'susan'),
        ('debbie', 'deborah'), ('deb', 'deborah'), ('vicky', 'victoria'), ('tori', 'victoria'),
        ('jess', 'jessica'), ('jessie', 'jessica'), ('cindy', 'cynthia'), ('patty', 'patricia'), ('trish', 'patricia'),
        ('sandy', 'sandra'), ('mandi', 'amanda'), ('steph', 'stephanie'), ('alexa', 'alexandra'), ('lexi', 'alexandra'),
        ('sasha', 'alexandra'), ('gabby', 'gabriela'), ('gabriella', 'gabriela'), ('nat', 'natalie'),
        ('pepe', 'jose'), ('chepe', 'jose'), ('paco', 'francisco'), ('pancho', 'francisco'), ('kiko', 'francisco'),
        ('lupe', 'guadalupe'), ('chuy', 'jesus'), ('memo', 'guillermo'), ('lalo', 'eduardo'), ('nacho', 'ignacio'),
        ('beto', 'alberto'), ('tono', 'antonio'), ('quique', 'enrique'), ('rafa', 'rafael'),
        ('fer', 'fernando'), ('nando', 'fernando'), ('chente', 'vicente'), ('chava', 'salvador'), ('chelo', 'consuelo'),
        ('conchita', 'concepcion'), ('concha', 'concepcion'), ('lola', 'dolores'), ('charo', 'rosario'),
        ('pili', 'pilar'), ('maite', 'mariateresa'), ('marite', 'mariateresa'), ('mari', 'maria'),
        ('lucho', 'luis'), ('pedrito', 'pedro'), ('juanito', 'juan'), ('manolo', 'manuel'), ('manu', 'manuel'),
        ('santi', 'santiago'), ('alejo', 'alejandro'), ('ale', 'alejandra'), ('dani', 'daniela'), ('caro', 'carolina'),
        ('vero', 'veronica'), ('isa', 'isabel'), ('chabela', 'isabel'), ('lulu', 'lourdes'), ('paty', 'patricia'),
        ('javi', 'javier'), ('migue', 'miguel'), ('tere', 'teresa'), ('moni', 'monica'), ('sofi', 'sofia')
    on conflict (variant) do nothing;

    create table person_aliases (
        id bigint generated always as identity primary key,
        person_id bigint not null references people on delete cascade,
        email text not null unique check (email <> '' and email = lower(email)),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
    );
    create index person_aliases_person_id on person_aliases (person_id);
    create trigger person_aliases_touch_updated_at before update on person_aliases
        for each row execute function touch_updated_at();
    create trigger person_aliases_record_run_insert after insert on person_aliases referencing new table as new_rows
        for each statement execute function record_run_insert();
    create trigger person_aliases_record_run_update after update on person_aliases
        referencing old table as old_rows new table as new_rows for each statement execute function record_run_update();
    create trigger person_aliases_record_run_delete after delete on person_aliases referencing old table as old_rows
        for each statement execute function record_run_delete();
    """#)
}
