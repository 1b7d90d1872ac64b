package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
)

// Question is a clarifying question the game master asked instead of
// playing the player's words (seed 004), and those words.
type Question struct {
	Text  string `json:"question"`
	Input string `json:"input"`
	// Actor is the character the question was put to: another
	// character's next turn does not answer it.
	Actor string `json:"actor,omitempty"`
}

// Ask ends the turn with a question for the player instead of an action:
// the question is told (through Emit), the response awaits a
// clarification and the next turn's Answering returns it, so the answer
// continues what the player meant. A turn that answers a question cannot
// ask another (one question per action, so a game cannot stall in
// questions); Ask then reports false and tells nothing.
func (t *Turn) Ask(ctx context.Context, question string) (bool, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return false, nil
	}
	prev, err := t.Answering(ctx)
	if err != nil {
		return false, err
	}
	if prev != nil {
		return false, nil
	}
	if t.narrative.Len() > 0 {
		t.Emit("\n\n")
	}
	t.Emit(question)
	t.question = question
	return true, nil
}

// Asked is the question the turn ends with, or "".
func (t *Turn) Asked() string { return t.question }

// Answering is the question the previous turn asked the acting character,
// when this turn's words are the answer to it; nil otherwise. It is read
// from the previous turn's record, so it holds across a restart.
func (t *Turn) Answering(ctx context.Context) (*Question, error) {
	if t.answering != nil {
		return *t.answering, nil
	}
	var c *Question
	recs, err := t.s.turns(ctx, t.Number-1, t.Number-1)
	if err != nil {
		return nil, fmt.Errorf("read the previous turn: %w", err)
	}
	if len(recs) == 1 {
		var ps struct {
			Clarification *Question `json:"clarification"`
		}
		if json.Unmarshal(recs[0].Passes, &ps) == nil && ps.Clarification != nil && ps.Clarification.Actor == t.s.w.Player {
			c = ps.Clarification
		}
	}
	t.answering = &c
	return c, nil
}

// Establish carries out what the narrator brought into the story (a new
// character, a fact, a new scene) through the rules, as part of the
// turn: its effects are committed and its intent recorded, but it sets
// off no reactions (no enemy acts on a description), and a refusal is
// returned to the caller without becoming the turn's rejection.
func (t *Turn) Establish(ctx context.Context, in rules.Intent) (*rules.Resolution, error) {
	res, err := t.s.eng.Resolve(ctx, t.s.w, in, t.s.rng)
	if err != nil {
		var rej *rules.Rejection
		if errors.As(err, &rej) {
			return nil, err
		}
		return nil, fmt.Errorf("establish %s: %w", in.Type(), err)
	}
	t.attempted = append(t.attempted, in)
	if err := t.apply(res); err != nil {
		return nil, err
	}
	return res, nil
}

// Validate judges proposed intents in order without changing anything:
// each is resolved with scratch dice against the world as the ones before
// it left it. It returns one error per intent judged (nil: accepted); it
// stops after the first refusal, as resolving them would, so intents
// after it are not judged. Dice outcomes are scratch ones, so a refusal
// that depends on a roll (a foe already down) may differ in play.
func (t *Turn) Validate(ctx context.Context, intents []rules.Intent) ([]error, error) {
	if len(intents) == 0 {
		return nil, nil
	}
	scratch := mrand.New(mrand.NewPCG(uint64(t.Number), 7))
	w := t.s.w
	if len(intents) > 1 {
		// Later intents are judged on a copy the earlier ones changed.
		c, err := w.Clone()
		if err != nil {
			return nil, err
		}
		w = c
	}
	var out []error
	for i, in := range intents {
		res, err := t.s.eng.Resolve(ctx, w, in, scratch)
		var rej *rules.Rejection
		if err != nil && !errors.As(err, &rej) {
			return nil, fmt.Errorf("validate %s: %w", in.Type(), err)
		}
		out = append(out, err)
		if err != nil {
			break
		}
		if i == len(intents)-1 {
			break
		}
		if err := w.ApplyAll(res.Effects()); err != nil {
			// The scratch world cannot follow: judge no further.
			break
		}
	}
	return out, nil
}
