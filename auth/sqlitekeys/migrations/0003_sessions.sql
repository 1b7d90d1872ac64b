-- Browser sessions signed in with an API key. id_hash is the hex SHA-256
-- of the cookie's token, never the token, so a copy of the database holds
-- no live session. A session dies with its key (revoked: refused at once;
-- deleted with its user: removed here). Times are Unix nanoseconds.
CREATE TABLE auth_sessions (
	id_hash    TEXT PRIMARY KEY,
	key_id     TEXT NOT NULL REFERENCES auth_keys (id) ON DELETE CASCADE,
	csrf       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	seen_at    INTEGER NOT NULL
);

CREATE INDEX auth_sessions_key ON auth_sessions (key_id);
