// Package migrate brings a SQLite schema up to date from numbered SQL
// files (NNNN_what.sql), each applied once in its own transaction and
// recorded in a version table. Hearth's stores share one database file,
// each with its own version table, so each can evolve on its own.
package migrate
