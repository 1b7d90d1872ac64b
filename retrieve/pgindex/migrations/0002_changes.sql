-- The change log of the chunks and their vectors, so that a server holding
-- them in memory applies what changed since the generation it holds
-- instead of reading all of them again (memvec.go).
--
-- Triggers on lore_chunks and lore_vectors, per statement, raise
-- lore_meta's generation by one and log every row the statement wrote
-- (inserted, updated or deleted) under the new generation, whoever wrote
-- it: Hearth, another server, psql. Raising the generation updates one
-- row, whose lock the transaction holds until it ends, so writing
-- transactions take generations one after the other in the order they
-- commit: one that took generation g has committed before any other can
-- take g + 1. A reader whose snapshot shows generation G therefore sees
-- every logged row up to G and none past it, and cannot miss a commit.
--
-- chunk is NULL for a TRUNCATE: every row changed (a full reload).
-- Entries older than the last 100,000 generations are dropped (every
-- 1,024th generation); lore_meta's changes_from is the generation after
-- which the log is complete, and a server holding an older one reloads.
CREATE TABLE lore_changes (
    gen   BIGINT NOT NULL,
    chunk BIGINT
);
CREATE INDEX lore_changes_gen ON lore_changes (gen);

INSERT INTO lore_meta (key, value)
    SELECT 'changes_from', coalesce((SELECT value FROM lore_meta WHERE key = 'generation'), '0');

-- TG_ARGV[0] is the table's chunk column. The statements name the
-- table's own schema, so a writer whose search_path lists others first
-- still logs beside the table written.
CREATE FUNCTION lore_log_changes() RETURNS trigger LANGUAGE plpgsql AS $$
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
        EXECUTE 'UPDATE ' || s || '.lore_meta SET value = greatest(value::bigint, $1)::text WHERE key = ''changes_from''' USING g - 100000;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER lore_chunks_log_insert AFTER INSERT ON lore_chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('n');
CREATE TRIGGER lore_chunks_log_update AFTER UPDATE ON lore_chunks
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('n');
CREATE TRIGGER lore_chunks_log_delete AFTER DELETE ON lore_chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('n');
CREATE TRIGGER lore_chunks_log_truncate AFTER TRUNCATE ON lore_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('n');
CREATE TRIGGER lore_vectors_log_insert AFTER INSERT ON lore_vectors
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('chunk');
CREATE TRIGGER lore_vectors_log_update AFTER UPDATE ON lore_vectors
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('chunk');
CREATE TRIGGER lore_vectors_log_delete AFTER DELETE ON lore_vectors
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('chunk');
CREATE TRIGGER lore_vectors_log_truncate AFTER TRUNCATE ON lore_vectors
    FOR EACH STATEMENT EXECUTE FUNCTION lore_log_changes('chunk');
