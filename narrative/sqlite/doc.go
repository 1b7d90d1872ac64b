// Package sqlite keeps a playthrough's narrative memory in SQLite: memory
// events with their embeddings, faction reputation and NPC perception with
// their histories, plot-beat state and stat values (seed 001 §6.1). It can
// share a database file with the rest of Hearth: its tables are prefixed
// narrative_ and its schema version lives in narrative_schema.
//
// Every write is one transaction. Recall is served from a narrative.Index
// loaded lazily, per playthrough, on the first recall and kept in step
// with this process's writes; so one process should own a playthrough's
// memories (the game does), and another process's writes are seen after
// reopening. Embeddings are stored as little-endian float32 BLOBs.
//
// The package stores and answers; deciding what to remember, when beats
// are evaluated or what a modifier means is the narrative package's and
// the game's business. It must not import game, rules or model packages.
package sqlite
