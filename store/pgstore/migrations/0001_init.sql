-- The tables of store/sqlitestore's 0001 and 0002 in one file. Times are
-- Unix nanoseconds and JSON is kept as the bytes given (BYTEA, not JSONB,
-- which would reformat it), so copies between the backends are exact.
-- Sessions' ids are COLLATE "C" so that they sort by bytes, as in SQLite.
CREATE TABLE sessions (
    id            TEXT COLLATE "C" PRIMARY KEY,
    name          TEXT NOT NULL,
    campaign      TEXT NOT NULL,
    campaign_path TEXT NOT NULL DEFAULT '',
    seed          BIGINT NOT NULL,
    config        BYTEA,
    branch_id     TEXT NOT NULL,
    head          INTEGER NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX sessions_by_update ON sessions (updated_at DESC);

-- seq orders a session's branches by creation, as SQLite's rowid does.
CREATE TABLE branches (
    id         TEXT PRIMARY KEY,
    seq        BIGINT GENERATED ALWAYS AS IDENTITY,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    parent_id  TEXT REFERENCES branches (id) ON DELETE CASCADE,
    fork_turn  INTEGER NOT NULL,
    tip        INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (session_id, name)
);
CREATE INDEX branches_by_parent ON branches (parent_id);

CREATE TABLE turns (
    branch_id  TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    actor      TEXT NOT NULL,
    input      TEXT NOT NULL,
    intents    BYTEA,
    effects    BYTEA,
    rolls      BYTEA,
    passes     BYTEA,
    narrative  TEXT NOT NULL,
    rng_state  BYTEA,
    timings    BYTEA,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (branch_id, number)
);

CREATE TABLE snapshots (
    branch_id TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    turn      INTEGER NOT NULL,
    state     BYTEA NOT NULL,
    rng_state BYTEA,
    PRIMARY KEY (branch_id, turn)
);

CREATE TABLE scene_lore (
    branch_id  TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    scene      INTEGER NOT NULL,
    lore       BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (branch_id, turn)
);

CREATE TABLE episodes (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    branch_id  TEXT NOT NULL,
    first_turn INTEGER NOT NULL,
    last_turn  INTEGER NOT NULL DEFAULT 0,
    started_at BIGINT NOT NULL,
    ended_at   BIGINT NOT NULL DEFAULT 0,
    recap      TEXT NOT NULL DEFAULT '',
    summary    TEXT NOT NULL DEFAULT '',
    lore       BYTEA,
    PRIMARY KEY (session_id, number)
);
