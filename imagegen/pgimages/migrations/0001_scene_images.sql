-- Scene illustrations, each with its game: a game's deletion takes them.
-- created_at is Unix microseconds, as in SQLite.
CREATE TABLE scene_images (
    id         TEXT COLLATE "C" PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    branch     TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    prompt     TEXT NOT NULL,
    provider   TEXT NOT NULL,
    model      TEXT NOT NULL,
    mode       TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    png        BYTEA NOT NULL
);
CREATE INDEX scene_images_by_session ON scene_images (session_id, created_at);
