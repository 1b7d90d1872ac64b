// Package database opens Hearth's storage once: one handle, every
// store's migrations in one ordered sequence, and every store over that
// handle. It is what the application's assembly calls. It only
// constructs: the stores themselves live in their packages.
//
// database.url chooses the backend (WithURL): empty is SQLite, the
// default, in the file DATA/hearth.db (package internal/sqlitedb and the
// sqlite* store packages); postgres://… is PostgreSQL, one connection
// pool shared by every store (package internal/pgdb and the pg* store
// packages). DB's fields are the stores' domain interfaces, filled by
// either backend. A postgres:// URL never falls back to SQLite: a server
// that cannot be reached is an error saying so.
package database
