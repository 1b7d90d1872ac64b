// Package sqlitestore is the embedded store.Store: one SQLite file, hearth.db,
// per data directory, through the pure-Go modernc.org/sqlite driver (no
// cgo), in WAL mode with synchronous=FULL by default, so a committed turn
// survives a crash or power loss and a kill -9 loses at most the turn in
// flight.
//
// Schema changes are numbered SQL files in migrations/ (Migrations),
// applied with every other store's by the one runner of package
// internal/sqlitedb and recorded as component "store" in hearth_schema. A
// database from a newer Hearth is refused rather than misread. Writes go
// through the handle's one connection with immediate transactions; reads
// use its pool. A turn's memory events are written in the turn's
// transaction (narrative/sqlitenarrative's InsertEvents).
package sqlitestore
