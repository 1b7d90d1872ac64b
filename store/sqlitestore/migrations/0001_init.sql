-- Sessions are playthroughs; branch_id and head say where each is.
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    campaign      TEXT NOT NULL,
    campaign_path TEXT NOT NULL DEFAULT '',
    seed          INTEGER NOT NULL,
    config        BLOB,
    branch_id     TEXT NOT NULL,
    head          INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX sessions_by_update ON sessions (updated_at DESC);

-- A branch points at its parent and the last turn it shares with it; tip
-- is the number of its last turn, kept so appending needs no scan.
CREATE TABLE branches (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    parent_id  TEXT REFERENCES branches (id) ON DELETE CASCADE,
    fork_turn  INTEGER NOT NULL,
    tip        INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, name)
);
CREATE INDEX branches_by_parent ON branches (parent_id);

-- One row per committed turn, stored under the branch that played it.
CREATE TABLE turns (
    branch_id  TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    actor      TEXT NOT NULL,
    input      TEXT NOT NULL,
    intents    BLOB,
    effects    BLOB,
    rolls      BLOB,
    passes     BLOB,
    narrative  TEXT NOT NULL,
    rng_state  BLOB,
    timings    BLOB,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (branch_id, number)
) WITHOUT ROWID;

CREATE TABLE snapshots (
    branch_id TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    turn      INTEGER NOT NULL,
    state     BLOB NOT NULL,
    rng_state BLOB,
    PRIMARY KEY (branch_id, turn)
) WITHOUT ROWID;
