package game

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// This file is the world moving on its own at the end of a turn: clocks
// tick with the game time that passed and the effects they name, a full
// clock fires, and consequences waiting on a trigger in words fire when
// their situation arises.

// Situation is what the turn has done so far, as relevance checks for
// free-text triggers read it.
func (t *Turn) Situation() world.Situation {
	w := t.s.w
	sit := world.Situation{Input: t.Input}
	pc := w.PC()
	if pc != nil {
		sit.Location = pc.Location
		for _, c := range w.CharactersAt(pc.Location) {
			sit.Present = append(sit.Present, c.ID)
		}
	}
	touch := func(id string) {
		if id != "" && (pc == nil || id != pc.ID) && !slices.Contains(sit.Touched, id) &&
			(w.Characters[id] != nil || w.Items[id] != nil) {
			sit.Touched = append(sit.Touched, id)
		}
	}
	for _, r := range t.all {
		for _, o := range r.Outcomes {
			if o.Text != "" {
				sit.Events = append(sit.Events, o.Text)
			}
			if o.Actor == "" || pc == nil || o.Actor == pc.ID {
				touch(o.Target)
				touch(o.Item)
			}
			for _, e := range o.Effects {
				switch e := e.(type) {
				case world.CharacterMoved:
					if pc != nil && e.Character == pc.ID && !slices.Contains(sit.Entered, e.To) {
						sit.Entered = append(sit.Entered, e.To)
					}
				case world.ItemTransferred:
					if pc != nil && (e.From == pc.ID || e.To == pc.ID) {
						touch(e.Item)
					}
				}
			}
		}
	}
	if slices.Contains(sit.Entered, sit.Location) {
		// Whoever is where the player arrived is met this turn.
		for _, id := range sit.Present {
			touch(id)
		}
	}
	return sit
}

// PendingTriggers lists the consequences waiting on a trigger in words
// alone, which a relevance check decides.
func (t *Turn) PendingTriggers() []*world.Consequence { return t.s.w.PendingTriggers() }

// TriggerConsequences fires pending free-text consequences a relevance
// check (a model's) found set off by this turn, with why in their
// outcome, and marks the turn as checked, so the offline check does not
// decide them again. IDs that are not pending free-text consequences are
// ignored: a model may name what it should not.
func (t *Turn) TriggerConsequences(ctx context.Context, fired map[string]string, by string) error {
	t.triggersChecked = true
	for _, c := range t.s.w.PendingTriggers() {
		if why, ok := fired[c.ID]; ok {
			if err := t.fireConsequence(ctx, c, by, why); err != nil {
				return err
			}
		}
	}
	return nil
}

// moveWorld runs at the end of every committed turn, after the pipeline
// played it.
func (t *Turn) moveWorld(ctx context.Context) error {
	if err := t.tickClocks(ctx); err != nil {
		return err
	}
	if t.triggersChecked {
		return nil
	}
	sit := t.Situation()
	for _, c := range t.s.w.PendingTriggers() {
		if ok, why := t.s.w.MatchTrigger(c, sit); ok {
			if err := t.fireConsequence(ctx, c, "offline", why); err != nil {
				return err
			}
		}
	}
	return nil
}

// fireConsequence marks a free-text consequence triggered, tells it and
// resolves what it carries.
func (t *Turn) fireConsequence(ctx context.Context, c *world.Consequence, by, why string) error {
	res := &rules.Resolution{Outcomes: []rules.Outcome{{Action: "consequence", Target: c.ID, Text: c.Description,
		Effects: world.Effects{world.ConsequenceTriggered{ID: c.ID}},
		Details: map[string]any{"trigger": c.Trigger, "checked_by": by, "why": why}}}}
	if err := t.apply(res); err != nil {
		return err
	}
	t.tell(c.Description)
	return t.follow(ctx, c.Then)
}

// tickClocks ticks every clock by the game time the turn passed and the
// effects it named, then fires the clocks that are full.
func (t *Turn) tickClocks(ctx context.Context) error {
	w := t.s.w
	kinds := map[string]bool{}
	for _, e := range t.effects {
		kinds[e.Kind()] = true
	}
	for _, id := range world.SortedKeys(w.Clocks) {
		c := w.Clocks[id]
		n, err := c.Ticks(w, t.startTime, w.Time)
		if err != nil {
			// An authoring mistake must not stop the game; the GM sees the
			// clock not moving, the log says why.
			t.s.opts.Logger.Warn("clock does not tick by time", "clock", c.ID, "err", err)
		}
		if !c.Fired && slices.ContainsFunc(c.TickOn, func(k string) bool { return kinds[k] }) {
			n++
		}
		if n == 0 || c.Value >= c.Max {
			continue
		}
		to := min(c.Max, c.Value+n)
		res := &rules.Resolution{Outcomes: []rules.Outcome{{Action: "clock", Target: c.ID, Amount: to - c.Value,
			Text:    fmt.Sprintf("Clock %q: %d/%d.", c.Name, to, c.Max),
			Effects: world.Effects{world.ClockTicked{Clock: c.ID, From: c.Value, To: to}}}}}
		if err := t.apply(res); err != nil {
			return err
		}
	}
	for _, id := range world.SortedKeys(w.Clocks) {
		if c := w.Clocks[id]; c.Full() {
			if err := t.fireClock(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// fireClock tells a full clock's consequence, records it as an event and
// resolves what it carries.
func (t *Turn) fireClock(ctx context.Context, c *world.Clock) error {
	w := t.s.w
	text := cmpOr(c.OnFull, fmt.Sprintf("The clock %q is full.", c.Name))
	ev := world.Event{ID: uniqueEventID(w, "clock_"+c.ID), Name: c.Name, Description: text, Turn: w.Turn, At: w.Time}
	if pc := w.PC(); pc != nil {
		ev.Location = pc.Location
	}
	res := &rules.Resolution{Outcomes: []rules.Outcome{{Action: "clock_full", Target: c.ID, Text: text,
		Effects: world.Effects{world.ClockFired{Clock: c.ID}, world.EventRecorded{Event: ev}}}}}
	if err := t.apply(res); err != nil {
		return err
	}
	t.tell(text)
	return t.follow(ctx, c.Then)
}

func uniqueEventID(w *world.State, base string) string {
	id := base
	for i := 2; w.Events[id] != nil; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	return id
}

// tell adds a paragraph to the turn's narration.
func (t *Turn) tell(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if strings.TrimSpace(t.Narrative()) != "" {
		t.Emit("\n\n")
	}
	t.Emit(text)
}

// follow resolves the intents a consequence or clock carries, with the
// world's reactions. One that no longer fits the world is skipped and
// kept as a note of the turn, so authored content cannot wedge a game;
// it is not the player's refusal.
func (t *Turn) follow(ctx context.Context, then []world.RawIntent) error {
	for _, raw := range then {
		in, err := rules.DecodeIntent(raw)
		if err == nil {
			var res *rules.Resolution
			res, err = t.s.eng.Resolve(ctx, t.s.w, in, t.s.rng)
			if err == nil {
				if err := t.apply(res); err != nil {
					return err
				}
				if err := t.s.eng.React(ctx, t.s.w, []*rules.Resolution{res}, t.s.rng, t.apply); err != nil {
					return fmt.Errorf("react to %s: %w", in.Type(), err)
				}
				continue
			}
		}
		var rej *rules.Rejection
		if !errors.As(err, &rej) && in != nil {
			return fmt.Errorf("resolve %s: %w", in.Type(), err)
		}
		note := world.NoteRecorded{Note: world.Note{Kind: world.NoteSkipped, Text: fmt.Sprintf("a follow-up did not happen: %v", err)}}
		if err := t.s.w.Apply(note); err != nil {
			return err
		}
		t.effects = append(t.effects, note)
	}
	return nil
}
