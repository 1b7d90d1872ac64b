// Package sqlite is the embedded store.Store: one SQLite file, hearth.db,
// per data directory, through the pure-Go modernc.org/sqlite driver (no
// cgo), in WAL mode with synchronous=FULL by default, so a committed turn
// survives a crash or power loss and a kill -9 loses at most the turn in
// flight.
//
// Schema changes are numbered SQL files in migrations/, applied in order
// in their own transactions and recorded in schema_migrations. A database
// from a newer Hearth is refused rather than misread. Writes go through one
// connection with immediate transactions; reads use a pool.
package sqlite
