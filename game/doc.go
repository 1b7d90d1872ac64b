// Package game is Hearth's public play API. A Session is one playthrough of
// a campaign: Act takes the player's words and returns the turn's Response
// (narrative, effects, rolls, and what the game awaits next), and every
// turn is committed to a store.Store as one event before Act returns.
// Restore moves back to any earlier turn, Fork starts a named branch there,
// Switch changes branch, Export writes a transcript, Verify checks the
// state against a full replay of the events.
//
// A turn runs: interpret (an Interpreter turns words into a
// rules.Interpretation) → resolve (the rules engine decides effects;
// world.Apply applies them) → react (enemy turns, encounters,
// consequences, scheduled events) → narrate (a Narrator streams the
// rules.Narration as prose) → commit. Interpreter and Narrator are defined
// here, next to the turn that uses them; a model implements them through a
// Pipeline (modelgm), and offlinegm's pattern interpreter and template
// narrator fill both roles when none is given, so Options{} plays offline.
// game imports no model provider.
//
// A Session is safe for concurrent use; turns are serialised. The package
// must not know about terminals, HTTP or any other door into the game.
package game
