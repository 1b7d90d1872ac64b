-- Browser sessions signed in with an API key, as in auth/sqlitekeys'
-- 0003. id_hash is the hex SHA-256 of the cookie's token, never the
-- token, so a copy of the database holds no live session. A session dies
-- with its key. Times are Unix nanoseconds.
CREATE TABLE auth_sessions (
    id_hash    TEXT COLLATE "C" PRIMARY KEY,
    key_id     TEXT COLLATE "C" NOT NULL REFERENCES auth_keys (id) ON DELETE CASCADE,
    csrf       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    seen_at    BIGINT NOT NULL
);
CREATE INDEX auth_sessions_key ON auth_sessions (key_id);
