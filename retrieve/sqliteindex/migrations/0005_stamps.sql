-- The generation and the change logs' entries identify a write, not only
-- count writes. A file restored from an older copy brings back older
-- counters with its rows, and after as many other writes they count the
-- same again over other contents: a process holding results or the full
-- text and vectors in memory "at generation G" or "at log entry S" must
-- not take them for the same. So every write also draws a random 63-bit
-- stamp:
--
--   - lore_meta's generation is "counter.stamp", both changed by every
--     change a search can see (a reader compares the whole value);
--   - each lore_chunk_log and lore_vector_log entry carries its own
--     stamp, and a process that holds entry S catches up only when the
--     log's entry S still carries the stamp it read (else it builds
--     whole).
--
-- CAST('12.345' AS INTEGER) is 12: the counter still counts.
UPDATE lore_meta SET value = CAST(value AS INTEGER) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';

DROP TRIGGER lore_generation_chunk_insert;
DROP TRIGGER lore_generation_chunk_delete;
DROP TRIGGER lore_generation_chunk_update;
DROP TRIGGER lore_generation_vector_insert;
DROP TRIGGER lore_generation_vector_delete;
DROP TRIGGER lore_generation_vector_update;
CREATE TRIGGER lore_generation_chunk_insert AFTER INSERT ON lore_chunks BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_chunk_delete AFTER DELETE ON lore_chunks BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_chunk_update AFTER UPDATE ON lore_chunks BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_insert AFTER INSERT ON lore_vectors BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_delete AFTER DELETE ON lore_vectors BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_update AFTER UPDATE ON lore_vectors BEGIN
    UPDATE lore_meta SET value = (CAST(value AS INTEGER) + 1) || '.' || (random() & 9223372036854775807) WHERE key = 'generation';
END;

-- Entries logged before this migration get stamps of their own: two
-- copies of one file migrated apart then disagree about them, which
-- costs a build, never a wrong catch-up.
ALTER TABLE lore_vector_log ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lore_chunk_log ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
UPDATE lore_vector_log SET stamp = random() & 9223372036854775807;
UPDATE lore_chunk_log SET stamp = random() & 9223372036854775807;
-- One entry for no chunk (0: rows are numbered from 1) when a log is
-- empty, so that whatever is built from the log holds an entry whose
-- stamp can be checked. Trimming keeps the newest entry, so the log
-- stays non-empty; a process holding no entry (an emptied log) builds
-- whole.
INSERT INTO lore_vector_log (chunk, stamp) SELECT 0, random() & 9223372036854775807
    WHERE NOT EXISTS (SELECT 1 FROM lore_vector_log);
INSERT INTO lore_chunk_log (chunk, stamp) SELECT 0, random() & 9223372036854775807
    WHERE NOT EXISTS (SELECT 1 FROM lore_chunk_log);

DROP TRIGGER lore_vectors_log_insert;
DROP TRIGGER lore_vectors_log_delete;
DROP TRIGGER lore_vectors_log_update;
DROP TRIGGER lore_chunks_log_access;
CREATE TRIGGER lore_vectors_log_insert AFTER INSERT ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk, stamp) VALUES (new.chunk, random() & 9223372036854775807);
END;
CREATE TRIGGER lore_vectors_log_delete AFTER DELETE ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk, stamp) VALUES (old.chunk, random() & 9223372036854775807);
END;
CREATE TRIGGER lore_vectors_log_update AFTER UPDATE ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk, stamp) VALUES (old.chunk, random() & 9223372036854775807);
    INSERT INTO lore_vector_log (chunk, stamp) SELECT new.chunk, random() & 9223372036854775807 WHERE new.chunk <> old.chunk;
END;
CREATE TRIGGER lore_chunks_log_access AFTER UPDATE OF access ON lore_chunks
WHEN new.access <> old.access BEGIN
    INSERT INTO lore_vector_log (chunk, stamp) VALUES (new.n, random() & 9223372036854775807);
END;

DROP TRIGGER lore_chunks_textlog_insert;
DROP TRIGGER lore_chunks_textlog_delete;
DROP TRIGGER lore_chunks_textlog_update;
CREATE TRIGGER lore_chunks_textlog_insert AFTER INSERT ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk, stamp) VALUES (new.n, random() & 9223372036854775807);
END;
CREATE TRIGGER lore_chunks_textlog_delete AFTER DELETE ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk, stamp) VALUES (old.n, random() & 9223372036854775807);
END;
CREATE TRIGGER lore_chunks_textlog_update
AFTER UPDATE OF n, heading, text, tags, access, pack, content_type, corpus, location, faction ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk, stamp) VALUES (old.n, random() & 9223372036854775807);
    INSERT INTO lore_chunk_log (chunk, stamp) SELECT new.n, random() & 9223372036854775807 WHERE new.n <> old.n;
END;
