-- Images get an id of their own (for GET /api/images/:id) and a vision
-- model's description (seed 000 §4.8.4), searchable by full text beside
-- the text around the image. Full-text search needs a rowid, so the table
-- is rebuilt; its rows are kept.
CREATE TABLE library_images_new (
    id          INTEGER PRIMARY KEY,
    document    TEXT NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    page        INTEGER NOT NULL,
    idx         INTEGER NOT NULL,   -- nth image on its page
    width       INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    webp        BLOB NOT NULL,
    description TEXT NOT NULL,      -- vision model caption; '' without one
    context     TEXT NOT NULL,      -- text near the image on its page
    UNIQUE (document, page, idx)
);
INSERT INTO library_images_new (document, page, idx, width, height, webp, description, context)
    SELECT document, page, idx, width, height, webp, caption, context FROM library_images ORDER BY document, page, idx;
DROP TABLE library_images;
ALTER TABLE library_images_new RENAME TO library_images;

CREATE VIRTUAL TABLE library_images_fts USING fts5(
    description, context,
    content = 'library_images', content_rowid = 'id',
    tokenize = 'porter unicode61'
);
INSERT INTO library_images_fts (library_images_fts) VALUES ('rebuild');

CREATE TRIGGER library_images_fts_insert AFTER INSERT ON library_images BEGIN
    INSERT INTO library_images_fts (rowid, description, context) VALUES (new.id, new.description, new.context);
END;
CREATE TRIGGER library_images_fts_delete AFTER DELETE ON library_images BEGIN
    INSERT INTO library_images_fts (library_images_fts, rowid, description, context) VALUES ('delete', old.id, old.description, old.context);
END;
CREATE TRIGGER library_images_fts_update AFTER UPDATE ON library_images BEGIN
    INSERT INTO library_images_fts (library_images_fts, rowid, description, context) VALUES ('delete', old.id, old.description, old.context);
    INSERT INTO library_images_fts (rowid, description, context) VALUES (new.id, new.description, new.context);
END;

-- The version table before numbered migrations.
DROP TABLE IF EXISTS library_schema;
