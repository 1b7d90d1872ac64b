package game

import (
	"context"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Interpreter reads player input in the context of the world: a model, or
// offlinegm's patterns.
type Interpreter interface {
	Interpret(ctx context.Context, w *world.State, input string) (rules.Interpretation, error)
}

// Narrator writes the prose of a turn, emitting it piece by piece as it is
// produced, and returns all of it: a model, or offlinegm's templates.
type Narrator interface {
	Narrate(ctx context.Context, n rules.Narration, emit func(string)) (string, error)
}

// Agent decides what a party member does, as the words a player would
// type (the interpreter then reads them): a model prompted with the
// character's personality, or offlinegm's rules of thumb. view is the
// world as that character knows it (see AgentView); an agent never sees
// more.
type Agent interface {
	Decide(ctx context.Context, view *world.State, member world.PartyMember) (string, error)
}

// AgentView is the world as party member character knows it: a player's
// view from that character (its own sheet, what it has seen, its own
// whispers).
func AgentView(w *world.State, character string) *world.State {
	return w.View(access.Player, character)
}
