-- A stamp that changes with every write to the users and keys that could
-- change what a key's lookup returns, whichever server (or psql) wrote
-- it: the triggers run in the writer's transaction, so the stamp commits
-- or rolls back with the change. A server keeps what it read of a key
-- while the stamp it read before the key is still the current one, and
-- reads the stamp, one integer, on every request, as auth/sqlitekeys'
-- 0004 does.
--
-- The new value is random rather than taken from a sequence: a database
-- restored from an older copy comes back to a stamp together with the
-- rows it was written with, which is right, while a sequence restored
-- with it would hand out again numbers a server has already seen with
-- other rows behind them. random() gives 52 bits.
--
-- The triggers are per statement (a bulk change moves the stamp once) and
-- include TRUNCATE; a statement that changes no row moves it too, which
-- costs only a read. Last-used times do not move it: RecordUse sets
-- last_used_at alone, which UPDATE OF leaves out. The function updates
-- the stamp in the schema of the table written, so a writer whose
-- search_path names other schemas first still moves the right one.
CREATE TABLE auth_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, (random() * 4503599627370496)::bigint);

CREATE FUNCTION auth_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The stamp beside the table written, whatever the writer's search_path.
    EXECUTE format('UPDATE %I.auth_generation SET n = (random() * 4503599627370496)::bigint WHERE id = 1', TG_TABLE_SCHEMA);
    RETURN NULL;
END
$$;

CREATE TRIGGER auth_generation_users AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON auth_users
    FOR EACH STATEMENT EXECUTE FUNCTION auth_generation_bump();
CREATE TRIGGER auth_generation_keys AFTER INSERT OR DELETE OR TRUNCATE ON auth_keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_generation_bump();
CREATE TRIGGER auth_generation_key_update AFTER UPDATE OF id, user_id, hash, check_bits, created_at, revoked_at ON auth_keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_generation_bump();
