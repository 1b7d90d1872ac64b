-- Recall keeps each playthrough's events in memory and reads only what
-- changed since. Identity IDs commit out of order when several servers
-- write, so each playthrough numbers its events itself: a counter row,
-- bumped by a trigger on every insert, hands out seq. The row stays locked
-- until the inserting transaction ends, so the next writer of that
-- playthrough waits, and a playthrough's committed events are always
-- seq 1..n without gaps: a reader holding 1..k reads seq > k. Deletions
-- (forgetting) count in forgotten, which tells a reader to reload.
CREATE TABLE narrative_event_seq (
    playthrough TEXT PRIMARY KEY,
    seq         BIGINT NOT NULL,
    forgotten   BIGINT NOT NULL DEFAULT 0
);

ALTER TABLE narrative_events ADD COLUMN seq BIGINT;
UPDATE narrative_events e SET seq = o.seq
    FROM (SELECT id, row_number() OVER (PARTITION BY playthrough ORDER BY id) AS seq FROM narrative_events) o
    WHERE e.id = o.id;
INSERT INTO narrative_event_seq (playthrough, seq)
    SELECT playthrough, max(seq) FROM narrative_events GROUP BY playthrough;
ALTER TABLE narrative_events ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX narrative_events_by_seq ON narrative_events (playthrough, seq);

CREATE FUNCTION narrative_event_number() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO narrative_event_seq AS s (playthrough, seq) VALUES (NEW.playthrough, 1)
        ON CONFLICT (playthrough) DO UPDATE SET seq = s.seq + 1
        RETURNING s.seq INTO NEW.seq;
    RETURN NEW;
END $$;
CREATE TRIGGER narrative_events_number BEFORE INSERT ON narrative_events
    FOR EACH ROW EXECUTE FUNCTION narrative_event_number();

CREATE FUNCTION narrative_event_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE narrative_event_seq SET forgotten = forgotten + 1 WHERE playthrough = OLD.playthrough;
    RETURN OLD;
END $$;
CREATE TRIGGER narrative_events_forgotten AFTER DELETE ON narrative_events
    FOR EACH ROW EXECUTE FUNCTION narrative_event_forgotten();

-- An event's playthrough or number never changes.
CREATE FUNCTION narrative_event_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.playthrough IS DISTINCT FROM OLD.playthrough OR NEW.seq IS DISTINCT FROM OLD.seq THEN
        RAISE EXCEPTION 'a memory event''s playthrough and number cannot change';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER narrative_events_fixed BEFORE UPDATE ON narrative_events
    FOR EACH ROW EXECUTE FUNCTION narrative_event_fixed();
