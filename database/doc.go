// Package database opens a data directory's storage once: the SQLite file
// DATA/hearth.db through one handle (package internal/sqlitedb), every
// store's migrations in one ordered sequence, and every store over that
// handle. It is what the application's assembly calls. It only
// constructs: the stores themselves live in their packages.
//
// database.url chooses the backend (WithURL): empty is SQLite, the
// default; postgres://… is PostgreSQL (package internal/pgdb and the pg*
// store packages). Until every store has a PostgreSQL backend, Open
// refuses a postgres:// URL with an error naming the stores still
// missing, and never falls back to SQLite on its own.
package database
