-- Users and their API keys. Keys are stored only as argon2id hashes in PHC
-- form; the key id is the public half of the key. Times are Unix
-- nanoseconds; NULL last_used_at means never used, NULL revoked_at active.
CREATE TABLE auth_users (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
	role       INTEGER NOT NULL CHECK (role BETWEEN 1 AND 4),
	created_at INTEGER NOT NULL
);

CREATE TABLE auth_keys (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
	hash         TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	last_used_at INTEGER,
	revoked_at   INTEGER
);

CREATE INDEX auth_keys_user ON auth_keys (user_id);
