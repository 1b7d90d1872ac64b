// Package sqlitedb is the one handle on a data directory's SQLite file:
// one writer connection (every write, in order, taking the write lock when
// its transaction begins), one pool of read-only connections, and one
// migration runner that brings every store's tables up to date in one
// ordered sequence, recorded in one version table, hearth_schema.
//
// Each store owns its numbered migration files (NNNN_what.sql) and hands
// them over as a Migrations set; Open applies the sets in the order given,
// each file in its own transaction together with its version row. A
// database that records a version newer than this Hearth knows is refused.
// Round-1 databases, where each store kept its own version table, are
// adopted in place: their versions move into hearth_schema and the old
// tables are dropped, in one transaction, before anything is applied.
package sqlitedb
