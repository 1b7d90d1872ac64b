-- Users and their API keys, as in auth/sqlitekeys (whose 0001 and 0002
-- this file joins). Text is COLLATE "C": ordered by bytes as in SQLite,
-- and lower() folds ASCII only, which makes the unique index on
-- lower(name) SQLite's NOCASE. Times are Unix nanoseconds; NULL
-- last_used_at means never used, NULL revoked_at active, NULL check_bits
-- a key issued before they existed.
CREATE TABLE auth_users (
    id         TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT COLLATE "C" NOT NULL,
    role       INTEGER NOT NULL CHECK (role BETWEEN 1 AND 4),
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX auth_users_name ON auth_users (lower(name));

CREATE TABLE auth_keys (
    id           TEXT COLLATE "C" PRIMARY KEY,
    user_id      TEXT COLLATE "C" NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    hash         TEXT NOT NULL,
    check_bits   BIGINT,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX auth_keys_user ON auth_keys (user_id);
