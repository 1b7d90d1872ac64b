-- The character library, as in chargen/sqlitecharacters: built characters
-- (chargen.Character as JSON text), each owned by one user; times are Unix
-- microseconds.
CREATE TABLE characters (
    id         TEXT COLLATE "C" PRIMARY KEY,
    owner      TEXT COLLATE "C" NOT NULL,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX characters_owner ON characters (owner, created_at);
