-- Faction reputation, NPC perception and their history, plot-beat state
-- and stat values, as in SQLite's narrative tables. Scores are doubles
-- (SQLite's REAL), times Unix nanoseconds and game seconds.
CREATE TABLE narrative_reputation (
    playthrough TEXT NOT NULL,
    faction     TEXT NOT NULL,
    score       DOUBLE PRECISION NOT NULL,
    game_time   BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (playthrough, faction)
);

CREATE TABLE narrative_perception (
    playthrough TEXT NOT NULL,
    npc         TEXT NOT NULL,
    faction     TEXT NOT NULL DEFAULT '',
    score       DOUBLE PRECISION NOT NULL,
    game_time   BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (playthrough, npc)
);

-- kind is 'reputation' or 'perception'; subject the faction or NPC.
CREATE TABLE narrative_standing_history (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    playthrough TEXT NOT NULL,
    kind        TEXT NOT NULL,
    subject     TEXT NOT NULL,
    game_time   BIGINT NOT NULL,
    wall_time   BIGINT NOT NULL,
    turn        INTEGER NOT NULL DEFAULT 0,
    score_before DOUBLE PRECISION NOT NULL,
    delta       DOUBLE PRECISION NOT NULL,
    score_after DOUBLE PRECISION NOT NULL,
    reason      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX narrative_standing_history_by_subject ON narrative_standing_history (playthrough, kind, subject, id);

-- Plot beats with a state; a beat without a row is pending.
CREATE TABLE narrative_beats (
    playthrough    TEXT NOT NULL,
    beat           TEXT NOT NULL,
    status         TEXT NOT NULL,
    eligible_since BIGINT NOT NULL DEFAULT 0,
    scene          BIGINT NOT NULL DEFAULT 0,
    reason         TEXT NOT NULL DEFAULT '',
    updated_at     BIGINT NOT NULL,
    PRIMARY KEY (playthrough, beat)
);

-- Stat values by key (health, npc.owen.trust).
CREATE TABLE narrative_stats (
    playthrough TEXT NOT NULL,
    stat        TEXT NOT NULL,
    value       BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (playthrough, stat)
);
