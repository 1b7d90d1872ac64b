// Package world is Hearth's game state: characters (player characters, NPCs
// and creatures with 5e-style sheets and campaign-defined stats), locations
// joined by exits, items, quests, factions, facts with visibility and
// importance, relationships, clocks, threads, consequences, scheduled events,
// whispers, the scene, combat, game time and free-form session state.
//
// State changes only through (*State).Apply with one of the Effect types
// defined here; the set is closed (Effect has an unexported method), so a new
// kind of change is a new type in this package, with a stable JSON name. An
// Effect is an outcome the rules engine has already decided: Apply checks
// only what it needs to keep the state consistent, never game rules.
//
// Values that fade — NPC perception, faction reputation, the importance of
// facts and consequences — are stored with the moment they were last set and
// decayed when read, so a turn's cost does not grow with campaign length.
//
// The package must not know about dice, rules, storage or models.
package world
