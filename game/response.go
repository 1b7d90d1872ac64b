package game

import (
	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Awaiting kinds (seed 003 AwaitingInput).
const (
	FreeForm     = "free_form"
	Choice       = "choice"
	Confirmation = "confirmation"
	// Clarification: the game master asked a question instead of playing
	// the player's words; the next input is the answer (Prompt is the
	// question).
	Clarification = "clarification"
)

// Awaiting says what the game waits for next.
type Awaiting struct {
	Kind    string   `json:"kind"`
	Prompt  string   `json:"prompt,omitempty"`
	Options []string `json:"options,omitempty"`
}

// Response is what one call to Act produced.
type Response struct {
	// Turn is the turn committed, or the current turn when the input was a
	// question or a confirmation prompt and no turn was taken.
	Turn      int  `json:"turn"`
	Committed bool `json:"committed"`
	// Agent and Controller say who played a committed turn (see
	// TurnRecord).
	Agent      string          `json:"agent,omitempty"`
	Controller string          `json:"controller,omitempty"`
	Narrative  string          `json:"narrative"`
	Effects    world.Effects   `json:"effects,omitempty"`
	Rolls      []dice.Result   `json:"rolls,omitempty"`
	Outcomes   []rules.Outcome `json:"outcomes,omitempty"`
	Awaiting   Awaiting        `json:"awaiting"`
	// Rejected is the rules' reason when the player's action was refused.
	Rejected string `json:"rejected,omitempty"`
	// Notice tells the player about the game itself (a branch was started).
	Notice string `json:"notice,omitempty"`
	// Fallback says what played the turn when the pipeline's model failed
	// ("offline narrator", "offline interpreter and narrator"); "" when
	// nothing failed.
	Fallback string `json:"fallback,omitempty"`
}
