-- A stamp that changes with every write to the users and keys that could
-- change what a key's lookup returns, whichever process (or the sqlite3
-- shell) wrote it: the triggers fire for every writer of the file. A
-- server keeps what it read of a key while the stamp it read before is
-- still the current one, and reads the stamp, one integer, on every
-- request. The new value is random rather than a count, so a database
-- restored from a copy cannot come back to a stamp a server has seen with
-- other keys behind it. Last-used times do not change it.
CREATE TABLE auth_generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO auth_generation (id, n) VALUES (1, random());
CREATE TRIGGER auth_generation_user_insert AFTER INSERT ON auth_users BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
CREATE TRIGGER auth_generation_user_update AFTER UPDATE ON auth_users BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
CREATE TRIGGER auth_generation_user_delete AFTER DELETE ON auth_users BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
CREATE TRIGGER auth_generation_key_insert AFTER INSERT ON auth_keys BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
CREATE TRIGGER auth_generation_key_update AFTER UPDATE OF id, user_id, hash, check_bits, created_at, revoked_at ON auth_keys BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
CREATE TRIGGER auth_generation_key_delete AFTER DELETE ON auth_keys BEGIN
	UPDATE auth_generation SET n = random() WHERE id = 1;
END;
