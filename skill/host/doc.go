// Package host is how skills reach the game's shared persistence —
// memories, faction reputation, NPC perception — without reading one
// another's data directories: a small HTTP API on 127.0.0.1, and a token
// per turn handed to the scripts it runs in HEARTH_SKILL_API and
// HEARTH_SKILL_TOKEN. A token reads and writes one playthrough only, and
// dies when its turn ends.
//
// Reads go straight through. Changes to the game state do not: a skill
// that wants a faction to think better of the player emits a state_patch,
// which the engine applies with the turn ("the model proposes, the engine
// disposes"). Memories are the exception — they record what happened and
// change no state — so skills may store them.
//
// API (JSON; Authorization: Bearer TOKEN):
//
//	POST /v1/memories/search   {"query": "...", "limit": 5}   → {"memories": [{turn, summary, kind, location, relevance}]}
//	POST /v1/memories          {"summary": "...", "characters": [...], "significance": 1..10, "kind": "event|triumph|failure"}
//	GET  /v1/reputation/{faction}                              → {"faction": id, "reputation": n, "tier": name}
//	GET  /v1/perception/{npc}                                  → {"npc": id, "perception": n, "tier": name}
package host
