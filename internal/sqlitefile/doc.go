// Package sqlitefile says what went wrong with one of Hearth's SQLite files
// in words a user can act on: the file is not a database, another process
// holds it, it is read-only. Every store that opens the data directory's
// database explains its errors through it, so they read alike, and opens them all with the same settings (DSN).
package sqlitefile
