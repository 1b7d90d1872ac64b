-- The server's ingest jobs, so that an upload survives a restart: an
-- unfinished job is resumed from its checkpoints when the server starts.
CREATE TABLE library_jobs (
    id          TEXT PRIMARY KEY,
    file        TEXT NOT NULL,      -- the uploaded file's name
    title       TEXT NOT NULL,      -- '' for the document's own
    tags        TEXT NOT NULL,      -- JSON array
    access      INTEGER NOT NULL,
    hash        TEXT NOT NULL,      -- sha256 hex of the uploaded bytes
    document    TEXT NOT NULL,      -- the id the document gets
    status      TEXT NOT NULL,      -- queued, running, done, failed
    stage       TEXT NOT NULL,
    error       TEXT NOT NULL,
    resumes     INTEGER NOT NULL,
    started     TEXT NOT NULL,      -- RFC 3339, UTC
    finished    TEXT                -- NULL while unfinished
);
CREATE INDEX library_jobs_unfinished ON library_jobs (started) WHERE finished IS NULL;

-- Documents by the file they came from: an upload of the same bytes is
-- matched against them.
CREATE INDEX library_documents_hash ON library_documents (hash);
