// Package rules decides what happens. It turns Intents — requests from the
// player, a model's tool calls, skills, consequences and scheduled events —
// into world Effects, after checking each against the world and the
// campaign's resolution system: d20 (5e-style modifiers, proficiency,
// advantage, criticals, AC and DC), 2d6 bands (6- fail, 7–9 partial, 10+
// success) or Traveller 2D6 (8+, DMs, Effect).
//
// The engine never changes the world itself: Resolve reads a state and
// returns a Resolution whose effects the caller applies with
// world.State.Apply; React reports what the world does in answer (NPC turns
// in combat, encounters, consequences, scheduled events) through a callback
// that applies each step before the next is decided. A refused intent is a
// *Rejection whose message says what is wrong and what would be valid, so a
// player or a model can correct itself. Both take a context.Context, which
// reaches the situational callback (SetSituational) that may read storage.
//
// Interpretation (what the player's words mean) and Narration (what the
// engine decided, to be told) are the data a turn's interpreter and
// narrator exchange with the game, so an implementation needs only rules
// and world.
//
// The package must not know about storage, models or any user interface.
package rules
