-- The character library: built characters (chargen.Character as JSON),
-- each owned by one user.
CREATE TABLE characters (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX characters_owner ON characters (owner, created_at);
