// Package narrative is the story's long memory: what happened (memory
// events and their recall), what the world thinks of the player (faction
// reputation and each NPC's perception, both fading with game time), where
// the story is going (plot beats evaluated at scene transitions) and the
// campaign's stats with the behavioural prose that teaches the narrator how
// to describe them. It follows seed 001 (Narratoria) §4.1.3–§4.2.3, §6.1,
// §6.2.8 and §7.4–§7.6.
//
// Everything here is pure: values in, values out, deterministic, no I/O and
// no clock. Time is game time (world.GameTime, minutes) passed in by the
// caller; randomness (the variance in a first impression) is a number the
// caller draws from the campaign's seeded RNG. The Index is an in-memory
// structure that makes Recall fast over many events; it is filled by a
// persistence layer (narrative/sqlitenarrative) and must not itself read or write
// storage. What a persistence backend offers is the Store interface
// (Memories, Standings, BeatStates, StatValues); every backend passes the
// conformance suite in narrative/narrativetest.
//
// The package decides nothing on its own: it does not apply consequences,
// roll dice or call models. Plot-beat decisions, roll modifiers and stat
// prompts are returned to the game and rules engine, which turn them into
// world effects. It must not import storage, model or HTTP packages.
package narrative
