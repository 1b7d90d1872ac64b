package narrative

import (
	"context"

	"github.com/hearth-rpg/hearth/world"
)

// The interfaces below are what a persistence backend of narrative memory
// offers (narrative/sqlitenarrative, narrative/pgnarrative). Each
// method is one transaction. Package narrative/narrativetest is the
// conformance suite every backend runs, so the game gets the same memory
// whichever one holds it.
//
// Errors carry codes of package hearth: hearth.NotFound for an event
// that does not exist, hearth.Invalid for input the caller must change
// (an event that fails Normalize, an embedding of the wrong dimension, a
// subject without an ID, an unknown stat).

// Memories stores a playthrough's memory events and recalls them.
type Memories interface {
	// Prepare readies events to be stored (normalised, wall time
	// stamped, embedded when the backend has an embedder) without
	// writing anything, so a turn can prepare before its transaction.
	Prepare(ctx context.Context, evs ...Event) ([]Event, error)
	// Remember stores events in one transaction, all or none, and
	// returns their new IDs in order.
	Remember(ctx context.Context, evs ...Event) ([]int64, error)
	// Recall answers q as the package's Recall does over the events
	// committed so far; a query with text and no vector is embedded when
	// the backend has an embedder, and answered lexically otherwise.
	Recall(ctx context.Context, q Query) ([]Match, error)
	// Event returns one stored event with its embedding.
	Event(ctx context.Context, playthrough string, id int64) (Event, error)
	// Forget deletes an event; it is never recalled again.
	Forget(ctx context.Context, playthrough string, id int64) error
}

// Standings keeps the player's faction reputation and each NPC's
// perception of the player, with their histories. Values decay with game
// time as the backend's ReputationConfig and PerceptionConfig say.
type Standings interface {
	// Reputation is the standing with a faction at game time now; a
	// faction never changed is neutral.
	Reputation(ctx context.Context, playthrough, faction string, now world.GameTime) (Standing, error)
	// Reputations lists every faction with a standing, by faction ID.
	Reputations(ctx context.Context, playthrough string, now world.GameTime) ([]Standing, error)
	// ChangeReputation decays the standing to c.At, adds c.Delta, clamps
	// and records the change, returning it with Before and After.
	ChangeReputation(ctx context.Context, playthrough string, c Change) (Change, error)
	// ReputationHistory lists a faction's changes, oldest first.
	ReputationHistory(ctx context.Context, playthrough, faction string) ([]Change, error)
	// Meet records a first meeting (the first impression, §4.2.3) and
	// reports whether it was the first; later meetings change nothing.
	Meet(ctx context.Context, playthrough, npc string, im Impression, at world.GameTime, turn int) (Standing, bool, error)
	// Perception is an NPC's perception at game time now and whether
	// the player has met them.
	Perception(ctx context.Context, playthrough, npc string, now world.GameTime) (Standing, bool, error)
	// ChangePerception is ChangeReputation for an NPC.
	ChangePerception(ctx context.Context, playthrough string, c Change) (Change, error)
	// PerceptionHistory lists an NPC's changes, oldest first.
	PerceptionHistory(ctx context.Context, playthrough, npc string) ([]Change, error)
	// Modifier is the roll modifier an NPC's perception gives at now,
	// capped to ±limit when limit > 0; zero for an NPC never met.
	Modifier(ctx context.Context, playthrough, npc string, now world.GameTime, limit int) (Modifier, error)
}

// BeatStates keeps the state of a playthrough's plot beats.
type BeatStates interface {
	BeatLog(ctx context.Context, playthrough string) (BeatLog, error)
	// RecordBeats stores the state the decisions lead to.
	RecordBeats(ctx context.Context, playthrough string, ds []Decision) error
	// Transition evaluates the beats at the transition into scene
	// (EvaluateBeats) and records the result in one transaction, so two
	// transitions never trigger a beat twice.
	Transition(ctx context.Context, playthrough string, scene int, beats []Beat, v View, opt BeatOptions) ([]Decision, error)
}

// StatValues keeps a playthrough's stat values by key (StatDef.Key).
type StatValues interface {
	Stats(ctx context.Context, playthrough string) (map[string]int, error)
	// InitStats gives each defined stat the playthrough lacks its
	// starting value, keeps the others, and returns all.
	InitStats(ctx context.Context, playthrough string, defs []StatDef) (map[string]int, error)
	// SetStats sets stats, each clamped to its range, all or none, and
	// returns the values stored.
	SetStats(ctx context.Context, playthrough string, defs []StatDef, changes map[string]int) (map[string]int, error)
}

// Store is everything narrative keeps for a playthrough.
type Store interface {
	Memories
	Standings
	BeatStates
	StatValues
}
