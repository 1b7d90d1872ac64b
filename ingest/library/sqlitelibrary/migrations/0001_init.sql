-- The library's first tables. IF NOT EXISTS: databases written before the
-- library used numbered migrations already hold them.
CREATE TABLE IF NOT EXISTS library_documents (
    id      TEXT PRIMARY KEY,
    title   TEXT NOT NULL,
    format  TEXT NOT NULL,
    source  TEXT NOT NULL,
    hash    TEXT NOT NULL,
    tags    TEXT NOT NULL,   -- JSON array
    access  INTEGER NOT NULL,
    pages   INTEGER NOT NULL,
    chunks  INTEGER NOT NULL,
    created TEXT NOT NULL    -- RFC 3339, UTC
);

CREATE TABLE IF NOT EXISTS library_pages (
    document TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    number   INTEGER NOT NULL,
    label    TEXT NOT NULL,
    text     TEXT NOT NULL,
    PRIMARY KEY (document, number)
) WITHOUT ROWID;

-- Images carry no access level: it is their document's, by join.
CREATE TABLE IF NOT EXISTS library_images (
    document TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    page     INTEGER NOT NULL,
    idx      INTEGER NOT NULL,
    width    INTEGER NOT NULL,
    height   INTEGER NOT NULL,
    webp     BLOB NOT NULL,
    caption  TEXT NOT NULL,
    context  TEXT NOT NULL,
    PRIMARY KEY (document, page, idx)
) WITHOUT ROWID;
