-- The library's tables, as SQLite's after its migration 0003: documents,
-- their pages and images (no access column: it is the document's, by
-- join) and the server's ingest jobs. Times are Unix nanoseconds, so
-- they round-trip exactly; tags are text arrays.
CREATE TABLE library_documents (
    id      TEXT PRIMARY KEY,
    title   TEXT NOT NULL,
    format  TEXT NOT NULL,
    source  TEXT NOT NULL,
    hash    TEXT NOT NULL,
    tags    TEXT[] NOT NULL DEFAULT '{}',
    access  INTEGER NOT NULL,
    pages   INTEGER NOT NULL,
    chunks  INTEGER NOT NULL,
    created BIGINT NOT NULL
);
-- Documents by the file they came from: an upload of the same bytes is
-- matched against them.
CREATE INDEX library_documents_hash ON library_documents (hash);

CREATE TABLE library_pages (
    document TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    number   INTEGER NOT NULL,
    label    TEXT NOT NULL,
    text     TEXT NOT NULL,
    PRIMARY KEY (document, number)
);

-- search weighs the vision model's description (A) above the text near
-- the image on its page (B).
CREATE TABLE library_images (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document    TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    page        INTEGER NOT NULL,
    idx         INTEGER NOT NULL,
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    webp        BYTEA NOT NULL,
    description TEXT NOT NULL,
    context     TEXT NOT NULL,
    search      TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('english', description), 'A') ||
        setweight(to_tsvector('english', context), 'B')) STORED,
    UNIQUE (document, page, idx)
);
CREATE INDEX library_images_search ON library_images USING GIN (search);

-- The server's ingest jobs, so that an upload survives a restart.
CREATE TABLE library_jobs (
    id        TEXT PRIMARY KEY,
    file      TEXT NOT NULL,
    title     TEXT NOT NULL,
    tags      TEXT[] NOT NULL DEFAULT '{}',
    access    INTEGER NOT NULL,
    hash      TEXT NOT NULL,
    document  TEXT NOT NULL,
    status    TEXT NOT NULL,
    stage     TEXT NOT NULL,
    error     TEXT NOT NULL,
    resumes   INTEGER NOT NULL,
    started   BIGINT NOT NULL,
    finished  BIGINT          -- NULL while unfinished
);
CREATE INDEX library_jobs_unfinished ON library_jobs (started) WHERE finished IS NULL;
