package rules

import "github.com/hearth-rpg/hearth/world"

// Interpretation is what the player's words mean: the intents to resolve,
// or an answer given without a turn. An interpreter (a model or the
// offline patterns) produces it; the game resolves it.
type Interpretation struct {
	// Intents to resolve in order.
	Intents []Intent `json:"-"`
	// Query asks for information without acting: inventory, sheet, quests,
	// help, recap. It is answered without a turn.
	Query string `json:"query,omitempty"`
	// Reply answers input that is neither an action nor a query (unknown
	// words, small talk with no one). No turn is taken.
	Reply string `json:"reply,omitempty"`
	// Confirm, when set, is a yes/no question to ask before resolving the
	// intents (attacking someone who is not hostile).
	Confirm string `json:"confirm,omitempty"`
}

// Narration is what the engine decided in a turn, for a narrator to tell.
type Narration struct {
	Input string
	// World is the state after the turn. What changed is in the
	// resolutions' outcomes and effects (a move's "first_visit" detail, a
	// death's condition), so no copy of the state before is needed.
	World       *world.State
	Resolutions []*Resolution
	// Rejection is set when the rules refused the player's intent.
	Rejection *Rejection
}
