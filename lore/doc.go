// Package lore prepares what the game master knows of the world at the
// boundaries of play, the way a human GM preps (seed 004 "Lore retrieval
// lifecycle"): campaign-level lore when an episode (a game night) begins,
// a materialised scene lore cache when a scene begins — atmosphere, NPC
// briefings, discoverable content, thread connections — and an
// incremental briefing when a character joins a scene mid-way. Turns do
// not query the index: they read the cache, plus keyword lore activated by
// the recent conversation, fitted with it into one token budget.
//
// Every passage keeps its access level, so one cache serves every viewer:
// Sections projects it for a role, and a player's projection never
// contains a passage above the player's level. Every passage considered
// keeps its retrieval trace, so "why did the GM not know X" has an answer.
//
// lore reads the retrieve index and lorebooks; it does not write to the
// index, change world state or call a model.
package lore
