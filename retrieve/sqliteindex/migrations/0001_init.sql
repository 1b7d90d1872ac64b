-- Every table is prefixed lore_: the index may share a database file with
-- Hearth's other tables. The index can always be rebuilt from its sources.

-- One row per indexed file, with the hash of its content when indexed, so
-- an indexer can skip unchanged files (even ones that gave no chunks).
CREATE TABLE lore_files (
    pack TEXT NOT NULL,
    file TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (pack, file)
) WITHOUT ROWID;

-- One row per chunk.Chunk. Lists are JSON arrays; the ones filters test
-- (tags, threads, entity id and refs) are also in lore_keys. heading is
-- the section path joined, for full-text search.
CREATE TABLE lore_chunks (
    n            INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    corpus       TEXT NOT NULL,
    pack         TEXT NOT NULL,
    file         TEXT NOT NULL,
    section      TEXT NOT NULL,
    heading      TEXT NOT NULL,
    page         INTEGER NOT NULL,
    ordinal      INTEGER NOT NULL,
    source_type  TEXT NOT NULL,
    content_type TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    entity_id    TEXT NOT NULL,
    refs         TEXT NOT NULL,
    location     TEXT NOT NULL,
    faction      TEXT NOT NULL,
    threads      TEXT NOT NULL,
    tags         TEXT NOT NULL,
    tier         INTEGER NOT NULL,
    is_player    INTEGER NOT NULL,
    access       INTEGER NOT NULL,
    text         TEXT NOT NULL,
    tokens       INTEGER NOT NULL,
    file_hash    TEXT NOT NULL,
    turn         INTEGER NOT NULL
);
-- Filter indexes end in access, so that a filter and the role check are
-- answered from the index alone.
CREATE INDEX lore_chunks_file ON lore_chunks (pack, file, access);
CREATE INDEX lore_chunks_location ON lore_chunks (location, access);
CREATE INDEX lore_chunks_faction ON lore_chunks (faction, access);
CREATE INDEX lore_chunks_content_type ON lore_chunks (content_type, access);
-- The order of a filter-only query: precedence tier (unset last), then
-- the files' own order.
CREATE INDEX lore_chunks_precedence ON lore_chunks (
    (CASE WHEN tier > 0 THEN tier ELSE 7 END), pack, file, ordinal, id);

-- Set-valued metadata, one row per value, so that "any of these tags" is
-- an index lookup. kind is 'tag', 'thread' or 'entity' (the chunk's own
-- entity id and the ids it refers to).
CREATE TABLE lore_keys (
    kind  TEXT NOT NULL,
    value TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    PRIMARY KEY (kind, value, chunk)
) WITHOUT ROWID;
CREATE INDEX lore_keys_chunk ON lore_keys (chunk);

-- Full text over heading, text and tags, kept in step with lore_chunks
-- by the triggers below. Headings weigh most, then tags, then text.
CREATE VIRTUAL TABLE lore_fts USING fts5(
    heading, text, tags,
    content = 'lore_chunks', content_rowid = 'n',
    tokenize = 'porter unicode61');
INSERT INTO lore_fts (lore_fts, rank) VALUES ('rank', 'bm25(3.0, 1.0, 2.0)');

-- Embeddings as little-endian float32 BLOBs, all in the one embedding
-- space named in lore_meta (embedder, dim).
CREATE TABLE lore_vectors (
    chunk INTEGER PRIMARY KEY,
    vec   BLOB NOT NULL
);

CREATE TABLE lore_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Whatever deletes a chunk removes its full-text entry, keys and vector.
CREATE TRIGGER lore_chunks_insert AFTER INSERT ON lore_chunks BEGIN
    INSERT INTO lore_fts (rowid, heading, text, tags) VALUES (new.n, new.heading, new.text, new.tags);
END;
CREATE TRIGGER lore_chunks_delete AFTER DELETE ON lore_chunks BEGIN
    INSERT INTO lore_fts (lore_fts, rowid, heading, text, tags) VALUES ('delete', old.n, old.heading, old.text, old.tags);
    DELETE FROM lore_keys WHERE chunk = old.n;
    DELETE FROM lore_vectors WHERE chunk = old.n;
END;
CREATE TRIGGER lore_chunks_update AFTER UPDATE ON lore_chunks BEGIN
    INSERT INTO lore_fts (lore_fts, rowid, heading, text, tags) VALUES ('delete', old.n, old.heading, old.text, old.tags);
    INSERT INTO lore_fts (rowid, heading, text, tags) VALUES (new.n, new.heading, new.text, new.tags);
END;
