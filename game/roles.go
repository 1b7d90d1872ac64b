package game

import (
	"context"

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
