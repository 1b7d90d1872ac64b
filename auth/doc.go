// Package auth knows who is asking: users with a role, their API keys
// (stored only as argon2id hashes), and per-key rate limits. A Keyring
// turns an API key into a User; server.Require puts that user on a
// request's context, and handlers read it with UserFrom and never take a
// role from a request body.
//
// A key reads hth_<id>_<secret>: the id finds the key's row, the secret is
// compared with its argon2id hash in constant time. Hashing is slow on
// purpose, so a Keyring remembers successful verifications for a few minutes
// (never failures) but still asks its Store for the key's row on every
// request, so that a key revoked by another process stops working at once.
// (The SQLite store answers from what it last read while a generation that
// every write to the users and keys changes is the one it read with it.)
// Last-used times are batched into one write a minute.
//
// Wrong secrets are rate-limited per key id and client address, and from
// all clients together; the key itself never is. Past the budget a wrong
// secret is refused (429, not 401) after a cheap check instead of a hash,
// while the right one, which passes that check, is hashed and accepted.
// Unknown key ids are hashed against a dummy, so refusing one costs what
// refusing a known one does.
//
// A browser signs in once with its key (Sessions.SignIn) and is then
// known by a session: a random 256-bit token in a cookie, kept in the
// store only as its SHA-256, with a CSRF token, an idle and an absolute
// limit. Every use of a session or of a single-use WebSocket ticket reads
// its key's row again, so revoking the key or removing its user ends them
// at the next request.
//
// Users and keys are kept in a Store, a small interface: package
// auth/sqlitekeys is the SQLite one, auth/authtest the suite every store
// passes. auth itself holds no SQL and no HTTP.
//
// It must not know about games, documents or models.
package auth
