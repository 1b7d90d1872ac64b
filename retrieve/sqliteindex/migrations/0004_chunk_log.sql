-- Every change to what the in-memory full text holds of a chunk (its
-- heading, text and tags, and the access level and columns a filter
-- tests without SQL), in order, so a process holding the full text in
-- memory can catch up with any writer's changes by reading only the
-- chunks changed. A log of its own rather than lore_vector_log: vector
-- writes (embedding, re-embedding) do not touch the full text, and a
-- text change without a vector change does not concern the vectors.
-- Trimmed as lore_vector_log is (write.go): the oldest entries go, never
-- the newest, so seq keeps rising; a reader further behind builds whole.
-- SQLite has one writer at a time, so seq order is commit order.
CREATE TABLE lore_chunk_log (
    seq   INTEGER PRIMARY KEY,
    chunk INTEGER NOT NULL
);
CREATE TRIGGER lore_chunks_textlog_insert AFTER INSERT ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk) VALUES (new.n);
END;
CREATE TRIGGER lore_chunks_textlog_delete AFTER DELETE ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk) VALUES (old.n);
END;
CREATE TRIGGER lore_chunks_textlog_update
AFTER UPDATE OF n, heading, text, tags, access, pack, content_type, corpus, location, faction ON lore_chunks BEGIN
    INSERT INTO lore_chunk_log (chunk) VALUES (old.n);
    INSERT INTO lore_chunk_log (chunk) SELECT new.n WHERE new.n <> old.n;
END;
