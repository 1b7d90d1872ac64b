-- Every generation gets a random 63-bit stamp, so that a generation
-- identifies a write and not only counts writes. A schema restored from
-- an older copy brings back an older counter with its rows and log, and
-- after as many other writes the counter is the same again over other
-- contents: a server holding the full text or the vectors "at generation
-- G" must not take them for the same, nor catch up from a log whose
-- entries up to G are other writes than the ones it applied.
--
-- lore_stamps holds the stamp of each generation the change log covers
-- (trimmed with it). The generation a server reads and compares is
-- "counter.stamp" (pgindex's readGeneration); to catch up from G a server
-- first checks that lore_stamps still gives G the stamp it holds (one
-- read by primary key), and reads everything otherwise. Every bump of
-- the counter writes its row in the same transaction, under the counter's
-- row lock, so stamps follow commit order as generations do.
CREATE TABLE lore_stamps (
    gen   BIGINT PRIMARY KEY,
    stamp BIGINT NOT NULL
);

INSERT INTO lore_stamps (gen, stamp)
    SELECT value::bigint, ('x' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint & 9223372036854775807
    FROM lore_meta WHERE key = 'generation';

-- lore_log_changes of migration 0002, with the bump's stamp and its trim.
CREATE OR REPLACE FUNCTION lore_log_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s text := quote_ident(TG_TABLE_SCHEMA);
    g bigint;
BEGIN
    -- A statement that wrote no row changes nothing held in memory.
    IF TG_OP IN ('INSERT') THEN
        PERFORM 1 FROM new_rows LIMIT 1;
        IF NOT FOUND THEN RETURN NULL; END IF;
    ELSIF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM 1 FROM old_rows LIMIT 1;
        IF NOT FOUND THEN RETURN NULL; END IF;
    END IF;
    EXECUTE 'INSERT INTO ' || s || '.lore_meta (key, value) VALUES (''generation'', ''1'')
        ON CONFLICT (key) DO UPDATE SET value = (lore_meta.value::bigint + 1)::text RETURNING value::bigint' INTO g;
    EXECUTE 'INSERT INTO ' || s || '.lore_stamps (gen, stamp)
        VALUES ($1, (''x'' || substr(md5(gen_random_uuid()::text), 1, 16))::bit(64)::bigint & 9223372036854775807)
        ON CONFLICT (gen) DO UPDATE SET stamp = excluded.stamp' USING g;
    IF TG_OP = 'TRUNCATE' THEN
        EXECUTE 'INSERT INTO ' || s || '.lore_changes (gen, chunk) VALUES ($1, NULL)' USING g;
    ELSIF TG_OP = 'INSERT' THEN
        EXECUTE 'INSERT INTO ' || s || '.lore_changes (gen, chunk) SELECT DISTINCT $1, ' || quote_ident(TG_ARGV[0]) || ' FROM new_rows' USING g;
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE 'INSERT INTO ' || s || '.lore_changes (gen, chunk) SELECT DISTINCT $1, ' || quote_ident(TG_ARGV[0]) || ' FROM old_rows' USING g;
    ELSE
        EXECUTE 'INSERT INTO ' || s || '.lore_changes (gen, chunk) SELECT $1, c FROM (SELECT ' || quote_ident(TG_ARGV[0]) || ' AS c FROM old_rows
            UNION SELECT ' || quote_ident(TG_ARGV[0]) || ' FROM new_rows) u' USING g;
    END IF;
    IF g % 1024 = 0 THEN
        EXECUTE 'DELETE FROM ' || s || '.lore_changes WHERE gen <= $1' USING g - 100000;
        EXECUTE 'DELETE FROM ' || s || '.lore_stamps WHERE gen <= $1' USING g - 100000;
        EXECUTE 'UPDATE ' || s || '.lore_meta SET value = greatest(value::bigint, $1)::text WHERE key = ''changes_from''' USING g - 100000;
    END IF;
    RETURN NULL;
END
$$;
