extension Migration {
    /// What people matching weighs (docs/ARCHITECTURE.md, "Duplicate people"), as functions over the
    /// distinct spellings of names and handles, so the comparisons run once per spelling, not per pair.
    ///
    /// - `person_name_tokens`: a name's words in lower case, accents, apostrophes and punctuation
    ///   aside (`De la Cruz`: de, la, cruz; `O'Brien`: obrien).
    /// - `without_generation`: a surname's words without a last `Jr`, `Sr`, `II`, `III` or `IV`.
    /// - `within_one_edit`: one letter added, dropped, changed, or two neighbours swapped
    ///   (fuzzystrmatch's `levenshtein`, and the swap it counts as two).
    /// - `made_of_name`: whether a handle's letters are made of a name (`mgarcia`, `maria.garcia`,
    ///   `garciam`, `ali.smith` for Alison Smith), so two people of that name may well share it.
    /// - `given_name_variants` holds a short form under each name it is short for (Alex: Alexander,
    ///   Alexandra, Alejandro), with more common ones; the functions nothing calls any more go.
    static let peopleMatchEvidence = Migration(version: 33, name: "people match evidence", sql: #"""
    create function person_name_tokens(name text) returns text[] language sql immutable parallel safe as $$
        select array_remove(regexp_split_to_array(regexp_replace(
            lower(public.unaccent('public.unaccent'::regdictionary, coalesce(name, ''))), '[''’`]', '', 'g'), '[^a-z]+'), '')
    $$;

    create function without_generation(tokens text[]) returns text[] language sql immutable parallel safe as $$
        select case when cardinality(tokens) > 1 and tokens[cardinality(tokens)] in ('jr', 'sr', 'ii', 'iii', 'iv')
                    then tokens[1:cardinality(tokens) - 1] else tokens end
    $$;

    create function within_one_edit(a text, b text) returns boolean language sql immutable parallel safe as $$
        select public.levenshtein(a, b) <= 1 or (length(a) = length(b) and public.levenshtein(a, b) = 2 and exists (
            select 1 from generate_series(1, length(a) - 1) i
            where b = left(a, i - 1) || substr(a, i + 1, 1) || substr(a, i, 1) || substr(a, i + 2)))
    $$;

    -- The surname (or one of its parts) with, before or after it, nothing, a given name or its start
    -- (an initial, or a short form of three letters or more); or a given name alone or with the
    -- surname's initial. `given` holds the forms of the given name (its nicknames too).
    create function made_of_name(handle text, given text[], surname text[]) returns boolean
    language plpgsql immutable parallel safe as $$
    declare
        l text;
        g text;
        f text;
    begin
        foreach l in array array_to_string(surname, '') || surname loop
            continue when l = '';
            foreach g in array array[case when right(handle, length(l)) = l then left(handle, length(handle) - length(l)) end,
                                     case when left(handle, length(l)) = l then substr(handle, length(l) + 1) end] loop
                continue when g is null;
                if g = '' then return true; end if;
                foreach f in array given loop
                    if f = g or (length(g) <> 2 and left(f, length(g)) = g) then return true; end if;
                end loop;
            end loop;
            foreach f in array given loop
                if handle = f or handle = f || left(l, 1) then return true; end if;
            end loop;
        end loop;
        return false;
    end
    $$;

    drop function email_canonical(text), email_handle(text), name_deletions(text);

    alter table given_name_variants drop constraint given_name_variants_pkey;
    alter table given_name_variants add primary key (variant, given_name);
    insert into given_name_variants (variant, given_name) values
        ('abby', 'abigail'), ('abbie', 'abigail'), ('abe', 'abraham'), ('al', 'albert'), ('al', 'alan'), ('al', 'alfred'),
        ('alex', 'alexander'), ('alex', 'alexandra'), ('alex', 'alejandro'), ('alex', 'alejandra'), ('alexis', 'alexandra'),
        ('ali', 'alison'), ('ali', 'allison'), ('allie', 'allison'), ('allie', 'alison'), ('allie', 'alexandra'),
        ('ally', 'allison'), ('andy', 'andrea'), ('angie', 'angela'), ('angie', 'angelica'), ('annie', 'ann'), ('annie', 'anna'),
        ('anne', 'ann'), ('tony', 'antonio'), ('toni', 'antonia'), ('bea', 'beatrice'), ('bea', 'beatriz'),
        ('bella', 'isabella'), ('izzy', 'isabella'), ('izzy', 'isabel'), ('isa', 'isabella'), ('bri', 'brianna'),
        ('brad', 'bradley'), ('cal', 'calvin'), ('cam', 'cameron'), ('cami', 'camila'), ('carrie', 'caroline'),
        ('carrie', 'carolyn'), ('cassie', 'cassandra'), ('cathy', 'catherine'), ('cat', 'catherine'), ('chris', 'christina'),
        ('chris', 'christine'), ('chris', 'christian'), ('chrissy', 'christina'), ('chrissy', 'christine'),
        ('christy', 'christina'), ('tina', 'christina'), ('topher', 'christopher'), ('kris', 'kristen'), ('kristy', 'kristen'),
        ('cliff', 'clifford'), ('connie', 'constance'), ('dani', 'danielle'), ('danny', 'daniel'), ('don', 'donald'),
        ('donnie', 'donald'), ('doug', 'douglas'), ('elle', 'gabrielle'), ('elle', 'eleanor'), ('ellie', 'eleanor'),
        ('ellie', 'elena'), ('ellie', 'ellen'), ('ellie', 'elizabeth'), ('em', 'emily'), ('em', 'emma'), ('emmy', 'emily'),
        ('eddie', 'eduardo'), ('fred', 'frederick'), ('frank', 'francis'), ('frankie', 'francisco'), ('gabe', 'gabriel'),
        ('gabby', 'gabrielle'), ('gabi', 'gabriela'), ('gaby', 'gabriela'), ('gerry', 'gerald'), ('jerry', 'gerald'),
        ('greg', 'gregorio'), ('hal', 'harold'), ('harry', 'harold'), ('jackie', 'jacqueline'), ('jake', 'jacob'),
        ('jay', 'jason'), ('jeff', 'jeffrey'), ('jen', 'jenna'), ('jo', 'joanna'), ('jo', 'josephine'), ('judy', 'judith'),
        ('jules', 'julia'), ('julie', 'julia'), ('johnny', 'jonathan'), ('kay', 'katherine'), ('ken', 'kenneth'),
        ('kenny', 'kenneth'), ('kim', 'kimberly'), ('larry', 'lawrence'), ('len', 'leonard'), ('lenny', 'leonard'),
        ('leo', 'leonardo'), ('lexi', 'alexis'), ('liv', 'olivia'), ('livvy', 'olivia'), ('lou', 'louis'), ('lucy', 'lucia'),
        ('luke', 'lucas'), ('maddie', 'madison'), ('maddie', 'madeline'), ('maddy', 'madison'), ('marty', 'martin'),
        ('max', 'maxwell'), ('max', 'maximilian'), ('mel', 'melissa'), ('mel', 'melanie'), ('mia', 'maria'),
        ('mo', 'mohammed'), ('mo', 'muhammad'), ('mo', 'mohamed'), ('molly', 'mary'), ('nan', 'nancy'),
        ('nate', 'nathaniel'), ('nick', 'nicolas'), ('nico', 'nicolas'), ('nikki', 'nicole'), ('nicky', 'nicole'),
        ('nora', 'eleanor'), ('ollie', 'oliver'), ('pam', 'pamela'), ('pete', 'peter'), ('phil', 'phillip'),
        ('phil', 'philip'), ('ray', 'raymond'), ('ron', 'ronald'), ('ronnie', 'ronald'), ('rosie', 'rosa'),
        ('rosie', 'rosemary'), ('russ', 'russell'), ('sam', 'samantha'), ('sammy', 'samantha'), ('sandy', 'alexandra'),
        ('sophie', 'sophia'), ('stan', 'stanley'), ('stef', 'stephanie'), ('ted', 'theodore'), ('teddy', 'theodore'),
        ('theo', 'theodore'), ('tess', 'teresa'), ('tessa', 'teresa'), ('terry', 'terrence'), ('tom', 'tomas'),
        ('val', 'valerie'), ('val', 'valentina'), ('vic', 'victor'), ('vince', 'vincent'), ('walt', 'walter'),
        ('wes', 'wesley'), ('zeke', 'ezekiel'), ('becca', 'rebekah'), ('kate', 'kathryn'), ('katie', 'kaitlyn'),
        ('chucho', 'jesus'), ('kike', 'enrique'), ('poncho', 'alfonso'), ('fito', 'rodolfo'), ('fito', 'adolfo'),
        ('rodo', 'rodrigo'), ('lety', 'leticia'), ('juanca', 'juancarlos'), ('juanpa', 'juanpablo'), ('majo', 'mariajose'),
        ('mafer', 'mariafernanda'), ('tono', 'antonio'), ('licha', 'alicia'), ('chayo', 'rosario'), ('nena', 'magdalena'),
        ('lupita', 'guadalupe')
    on conflict do nothing;
    """#)
}
