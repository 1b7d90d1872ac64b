-- The lore index on PostgreSQL: the tables of retrieve/sqliteindex, with
-- full text as a tsvector column under a GIN index, and set-valued
-- metadata as text[] columns under GIN indexes instead of a key table.

-- One row per indexed file, with the hash of its content when indexed.
CREATE TABLE lore_files (
    pack TEXT NOT NULL,
    file TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (pack, file)
);

-- One row per chunk.Chunk. tsv is written with the row (see write.go):
-- the heading path weighted A, tags B and text D, English stemming.
CREATE TABLE lore_chunks (
    n            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    corpus       TEXT NOT NULL,
    pack         TEXT NOT NULL,
    file         TEXT NOT NULL,
    section      TEXT[] NOT NULL,
    heading      TEXT NOT NULL,
    page         INTEGER NOT NULL,
    ordinal      INTEGER NOT NULL,
    source_type  TEXT NOT NULL,
    content_type TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    entity_id    TEXT NOT NULL,
    refs         TEXT[] NOT NULL,
    location     TEXT NOT NULL,
    faction      TEXT NOT NULL,
    threads      TEXT[] NOT NULL,
    tags         TEXT[] NOT NULL,
    tier         INTEGER NOT NULL,
    is_player    BOOLEAN NOT NULL,
    access       SMALLINT NOT NULL,
    text         TEXT NOT NULL,
    tokens       INTEGER NOT NULL,
    file_hash    TEXT NOT NULL,
    turn         INTEGER NOT NULL,
    tsv          TSVECTOR NOT NULL
);
CREATE INDEX lore_chunks_file ON lore_chunks (pack, file, access);
CREATE INDEX lore_chunks_location ON lore_chunks (location, access);
CREATE INDEX lore_chunks_faction ON lore_chunks (faction, access);
CREATE INDEX lore_chunks_content_type ON lore_chunks (content_type, access);
CREATE INDEX lore_chunks_precedence ON lore_chunks (
    (CASE WHEN tier > 0 THEN tier ELSE 7 END), pack COLLATE "C", file COLLATE "C", ordinal, id COLLATE "C");
-- fastupdate off: the index is written when packs are imported and read
-- on every turn, and a GIN pending list is scanned in full by every
-- search until a vacuum merges it.
CREATE INDEX lore_chunks_tsv ON lore_chunks USING GIN (tsv) WITH (fastupdate = off);
CREATE INDEX lore_chunks_tags ON lore_chunks USING GIN (tags) WITH (fastupdate = off);
CREATE INDEX lore_chunks_threads ON lore_chunks USING GIN (threads) WITH (fastupdate = off);
CREATE INDEX lore_chunks_refs ON lore_chunks USING GIN (refs) WITH (fastupdate = off);
CREATE INDEX lore_chunks_entity ON lore_chunks (entity_id);

-- Embeddings, all in the one space named in lore_meta (embedder, dim).
-- They are kept as real[] whether or not pgvector is installed, so the
-- exact scan works without it; with it, an HNSW index over
-- vec::vector(dim) is made at start-up, once the dimension is known.
CREATE TABLE lore_vectors (
    chunk BIGINT PRIMARY KEY REFERENCES lore_chunks (n) ON DELETE CASCADE,
    vec   REAL[] NOT NULL
);

CREATE TABLE lore_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
