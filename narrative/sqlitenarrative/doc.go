// Package sqlitenarrative keeps a playthrough's narrative memory in SQLite: memory
// events with their embeddings, faction reputation and NPC perception with
// their histories, plot-beat state and stat values (seed 001 §6.1). It
// shares the data directory's database with the rest of Hearth (New over
// the one handle, package internal/sqlitedb): its tables are prefixed
// narrative_ and its schema is component "narrative" in hearth_schema.
//
// Every write is one transaction. A turn's memory events are written in
// the turn's transaction by the turn store, through InsertEvents. Recall
// is served from a narrative.Index loaded lazily, per playthrough, on the
// first recall; each recall first reads the events committed since (by
// anyone: a turn, Remember, another process), so uncommitted events are
// never recalled and committed ones are not missed. Forgetting is seen at
// once only in the process that forgot. Embeddings are stored as
// little-endian float32 BLOBs.
//
// The package stores and answers; deciding what to remember, when beats
// are evaluated or what a modifier means is the narrative package's and
// the game's business. It must not import game, rules or model packages.
package sqlitenarrative
