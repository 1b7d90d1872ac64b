// Package sqlitefile says what went wrong with one of Hearth's SQLite files
// in words a user can act on: the file is not a database, another process
// holds it, it is read-only. The data directory's one handle (package
// internal/sqlitedb) explains its errors through it and opens the file
// with its settings (DSN).
package sqlitefile
