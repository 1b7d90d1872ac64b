-- The scene lore cache: what retrieval materialised when a scene began,
-- stored at the turn that began it (0 for the opening scene) and found
-- along a branch's line like snapshots.
CREATE TABLE scene_lore (
    branch_id  TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    scene      INTEGER NOT NULL,
    lore       BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (branch_id, turn)
) WITHOUT ROWID;

-- Episodes are game nights: seed 004's "sessions". Each keeps the recap
-- shown when it began and the summary written when it ended.
CREATE TABLE episodes (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    branch_id  TEXT NOT NULL,
    first_turn INTEGER NOT NULL,
    last_turn  INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL DEFAULT 0,
    recap      TEXT NOT NULL DEFAULT '',
    summary    TEXT NOT NULL DEFAULT '',
    lore       BLOB,
    PRIMARY KEY (session_id, number)
) WITHOUT ROWID;
