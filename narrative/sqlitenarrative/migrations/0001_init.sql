-- Memory events (seed 001 §6.1.1). characters and tags are JSON arrays;
-- embedding is little-endian float32, NULL when there is none.
CREATE TABLE narrative_events (
    id           INTEGER PRIMARY KEY,
    playthrough  TEXT NOT NULL,
    session      TEXT NOT NULL DEFAULT '',
    turn         INTEGER NOT NULL DEFAULT 0,
    scene        INTEGER NOT NULL DEFAULT 0,
    game_time    INTEGER NOT NULL DEFAULT 0,
    wall_time    INTEGER NOT NULL,
    summary      TEXT NOT NULL,
    characters   TEXT NOT NULL DEFAULT '[]',
    location     TEXT NOT NULL DEFAULT '',
    action_type  TEXT NOT NULL DEFAULT '',
    significance INTEGER NOT NULL,
    tags         TEXT NOT NULL DEFAULT '[]',
    kind         TEXT NOT NULL DEFAULT 'event',
    embedding    BLOB
);
CREATE INDEX narrative_events_by_playthrough ON narrative_events (playthrough, id);

-- Faction reputation and NPC perception: the score as set at game_time,
-- decayed when read. Each change is kept in the history.
CREATE TABLE narrative_reputation (
    playthrough TEXT NOT NULL,
    faction     TEXT NOT NULL,
    score       REAL NOT NULL,
    game_time   INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (playthrough, faction)
) WITHOUT ROWID;

CREATE TABLE narrative_perception (
    playthrough TEXT NOT NULL,
    npc         TEXT NOT NULL,
    faction     TEXT NOT NULL DEFAULT '',
    score       REAL NOT NULL,
    game_time   INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (playthrough, npc)
) WITHOUT ROWID;

-- kind is 'reputation' or 'perception'; subject the faction or NPC.
CREATE TABLE narrative_standing_history (
    id          INTEGER PRIMARY KEY,
    playthrough TEXT NOT NULL,
    kind        TEXT NOT NULL,
    subject     TEXT NOT NULL,
    game_time   INTEGER NOT NULL,
    wall_time   INTEGER NOT NULL,
    turn        INTEGER NOT NULL DEFAULT 0,
    before      REAL NOT NULL,
    delta       REAL NOT NULL,
    after       REAL NOT NULL,
    reason      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX narrative_standing_history_by_subject ON narrative_standing_history (playthrough, kind, subject, id);

-- Plot beats with a state; a beat without a row is pending.
CREATE TABLE narrative_beats (
    playthrough    TEXT NOT NULL,
    beat           TEXT NOT NULL,
    status         TEXT NOT NULL,
    eligible_since INTEGER NOT NULL DEFAULT 0,
    scene          INTEGER NOT NULL DEFAULT 0,
    reason         TEXT NOT NULL DEFAULT '',
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (playthrough, beat)
) WITHOUT ROWID;

-- Stat values by key (health, npc.owen.trust).
CREATE TABLE narrative_stats (
    playthrough TEXT NOT NULL,
    stat        TEXT NOT NULL,
    value       INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (playthrough, stat)
) WITHOUT ROWID;
