// Package database opens a data directory's storage once: the SQLite file
// DATA/hearth.db through one handle (package internal/sqlitedb), every
// store's migrations in one ordered sequence, and every store over that
// handle. It is what the application's assembly calls; a PostgreSQL
// backend will plug in here. It only constructs: the stores themselves
// live in their packages.
package database
