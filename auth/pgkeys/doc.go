// Package pgkeys keeps auth's users, API keys and browser sessions in
// PostgreSQL: the auth.Store and auth.SessionStore of a Hearth whose
// database.url is postgres://…, the counterpart of auth/sqlitekeys. A
// session's row dies with its key's. Its schema is component "auth" in
// hearth_schema (package internal/pgdb).
//
// Names are unique without regard to ASCII case, as SQLite's NOCASE, by a
// unique index on lower(name) over "C"-collated text. Several servers may
// share the tables: a name taken by two at once is ErrUserExists for one.
//
// auth_generation holds one value that triggers change with every write
// to the users and keys, in the writer's transaction (see migration 0003);
// Key reads it on every call and reads a key's row only when it changed
// since the row was last read.
package pgkeys
