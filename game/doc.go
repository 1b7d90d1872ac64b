// Package game is Hearth's public play API. A Session is one playthrough of
// a campaign: Act takes the player's words and returns the turn's Response
// (narrative, effects, rolls, and what the game awaits next), and every
// turn is committed to a store.Store as one event before Act returns.
// Restore moves back to any earlier turn, Fork starts a named branch there,
// Switch changes branch, Export writes a transcript, Verify checks the
// state against a full replay of the events.
//
// A turn runs: interpret (an llm.Interpreter turns words into rules
// intents) → resolve (the rules engine decides effects; world.Apply applies
// them) → react (enemy turns, encounters, consequences, scheduled events) →
// narrate (an llm.Narrator streams prose) → commit. The offline provider
// fills both model roles when no model is configured.
//
// A Session is safe for concurrent use; turns are serialised. The package
// must not know about terminals, HTTP or any other door into the game.
package game
