-- Several servers on one database share their games and ingest jobs.
--
-- A lease names what one process runs (game:<id>, job:<id>): its owner
-- renews expires_at while it lives; another process may take a lease
-- whose time has passed. autopilot says the game's autopilot was running,
-- so whoever takes the game over starts it again.
CREATE TABLE live_leases (
	name       text PRIMARY KEY,
	owner      text NOT NULL,
	expires_at timestamptz NOT NULL,
	autopilot  boolean NOT NULL DEFAULT false
);
CREATE INDEX live_leases_expiry ON live_leases (expires_at);

-- Events too large for a NOTIFY payload wait here for the other servers
-- to read them by id; they are kept a few minutes.
CREATE TABLE live_events (
	id      bigserial PRIMARY KEY,
	body    bytea NOT NULL,
	created timestamptz NOT NULL DEFAULT now()
);

-- A command for the process owning a game, and its answer. The owner
-- takes a call by deleting its row; the caller takes the reply the same
-- way.
CREATE TABLE live_calls (
	id      bigserial PRIMARY KEY,
	game    text NOT NULL,
	caller  text NOT NULL,
	body    bytea NOT NULL,
	created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE live_replies (
	id      bigint PRIMARY KEY,
	body    bytea,
	error   text NOT NULL DEFAULT '',
	created timestamptz NOT NULL DEFAULT now()
);
