-- Memory events (seed 001 §6.1.1), as in SQLite's narrative_events:
-- times are Unix nanoseconds and game seconds, so copies between the two
-- backends are exact; the embedding is float4[], NULL when there is none.
CREATE TABLE narrative_events (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    playthrough  TEXT NOT NULL,
    session      TEXT NOT NULL DEFAULT '',
    turn         INTEGER NOT NULL DEFAULT 0,
    scene        INTEGER NOT NULL DEFAULT 0,
    game_time    BIGINT NOT NULL DEFAULT 0,
    wall_time    BIGINT NOT NULL,
    summary      TEXT NOT NULL,
    characters   TEXT[] NOT NULL DEFAULT '{}',
    location     TEXT NOT NULL DEFAULT '',
    action_type  TEXT NOT NULL DEFAULT '',
    significance INTEGER NOT NULL,
    tags         TEXT[] NOT NULL DEFAULT '{}',
    kind         TEXT NOT NULL DEFAULT 'event',
    embedding    REAL[]
);
CREATE INDEX narrative_events_by_playthrough ON narrative_events (playthrough, id);
