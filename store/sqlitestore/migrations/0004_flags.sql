-- Players' flags on turns: complaints kept beside the turns (which stay
-- append-only) for evaluation and prompt tuning.
CREATE TABLE turn_flags (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    branch_id  TEXT NOT NULL REFERENCES branches (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    by_user    TEXT NOT NULL DEFAULT '',
    reason     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX turn_flags_by_turn ON turn_flags (branch_id, turn);
