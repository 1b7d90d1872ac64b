-- Every change to a chunk's vector or access level, in order, so a
-- process holding the vectors in memory can catch up with any writer's
-- changes (its own or another process's) by reading only what changed.
-- Only the newest entries are kept (see write.go); a reader that has
-- fallen further behind reloads everything. Trimming removes the oldest
-- entries and never the newest, so seq keeps rising without AUTOINCREMENT
-- (whose sqlite_sequence table would be shared with the file's other
-- tables).
CREATE TABLE lore_vector_log (
    seq   INTEGER PRIMARY KEY,
    chunk INTEGER NOT NULL
);
CREATE TRIGGER lore_vectors_log_insert AFTER INSERT ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk) VALUES (new.chunk);
END;
CREATE TRIGGER lore_vectors_log_delete AFTER DELETE ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk) VALUES (old.chunk);
END;
CREATE TRIGGER lore_vectors_log_update AFTER UPDATE ON lore_vectors BEGIN
    INSERT INTO lore_vector_log (chunk) VALUES (old.chunk);
    INSERT INTO lore_vector_log (chunk) SELECT new.chunk WHERE new.chunk <> old.chunk;
END;
CREATE TRIGGER lore_chunks_log_access AFTER UPDATE OF access ON lore_chunks
WHEN new.access <> old.access BEGIN
    INSERT INTO lore_vector_log (chunk) VALUES (new.n);
END;
