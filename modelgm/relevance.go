package modelgm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/world"
)

// relevance is the model's answer to the trigger check.
type relevance struct {
	Fired []firedTrigger `json:"fired" jsonschema:"the triggers this turn set off; empty when none did"`
}

type firedTrigger struct {
	ID  string `json:"id" jsonschema:"the trigger's id, exactly as listed"`
	Why string `json:"why,omitempty" jsonschema:"what in the turn set it off, in a few words"`
}

// relevanceSpec is built once: the schema never changes.
var relevanceSpec = sync.OnceValues(func() (*structured.Spec[relevance], error) {
	return structured.New[relevance]("triggers")
})

// relevanceSystem is the trigger check's prompt. It is small and fixed,
// so providers can cache it.
const relevanceSystem = `You keep a tabletop game's story consistent. Some consequences wait for a situation described in words. Read what happened this turn and decide, for each listed trigger, whether its situation has now arisen.
A trigger fires only when the turn makes it true now: the player has just done it, or it has just come about. A trigger that was already true before this turn, or that the turn only hints at, does not fire. When unsure, it does not fire.
Answer with JSON only: {"fired": [{"id": "...", "why": "..."}]}, and {"fired": []} when none fired.`

// checkTriggers asks the interpreter's model, in one small call, which of
// the consequences waiting on a trigger in words this turn set off, and
// fires those. It costs nothing when none are pending. The call is kept
// with the turn as the "relevance" pass; if it fails, the game's offline
// check decides instead.
func (p *Pipeline) checkTriggers(ctx context.Context, t *game.Turn) error {
	pending := t.PendingTriggers()
	if len(pending) == 0 {
		return nil
	}
	spec, err := relevanceSpec()
	if err != nil {
		return err
	}
	start := time.Now()
	role := p.cfg.Interpreter
	ids := make([]string, len(pending))
	for i, c := range pending {
		ids[i] = c.ID
	}
	check := *spec
	check.Check = func(v relevance) error {
		for _, f := range v.Fired {
			if !slices.Contains(ids, f.ID) {
				return fmt.Errorf("%q is not one of the listed triggers (%s)", f.ID, strings.Join(ids, ", "))
			}
		}
		return nil
	}
	user := relevanceInput(t.World(), pending, t.Situation(), t.Narrative())
	v, rep, err := check.Call(ctx, role.Provider, llm.Request{Model: role.Model, Messages: []llm.Message{
		{Role: llm.System, Content: relevanceSystem, Cache: true}, {Role: llm.User, Content: user}}})
	call := Call{Pass: "relevance", Provider: role.Provider.Name(), Model: role.Model, System: relevanceSystem,
		Report: &rep, Usage: rep.Usage, Millis: time.Since(start).Milliseconds()}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		call.Error, call.Fallback = err.Error(), "offline trigger check"
		p.cfg.Logger.Warn("trigger check failed; checking offline", "err", err)
		return t.Record(call)
	}
	call.Output = raw(v)
	if err := t.Record(call); err != nil {
		return err
	}
	fired := map[string]string{}
	for _, f := range v.Fired {
		fired[f.ID] = cmpOr(f.Why, "the model judged it so")
	}
	return t.TriggerConsequences(ctx, fired, "model")
}

// relevanceInput lays out the pending triggers and the turn for the
// check, entities by name.
func relevanceInput(w *world.State, pending []*world.Consequence, sit world.Situation, narration string) string {
	name := func(id string) string {
		switch {
		case w.Locations[id] != nil:
			return w.Locations[id].Name
		case w.Characters[id] != nil:
			return w.Characters[id].Name
		case w.Items[id] != nil:
			return w.Items[id].Name
		}
		return id
	}
	names := func(ids []string) string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = name(id)
		}
		return strings.Join(out, ", ")
	}
	var b strings.Builder
	b.WriteString("Triggers waiting:\n")
	for _, c := range pending {
		fmt.Fprintf(&b, "- id %s: when %s", c.ID, c.Trigger)
		if c.At != "" {
			fmt.Fprintf(&b, " (only at %s)", name(c.At))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nThis turn:\n")
	fmt.Fprintf(&b, "Player's words: %s\n", oneLine(sit.Input))
	if sit.Location != "" {
		fmt.Fprintf(&b, "The player is now at: %s\n", name(sit.Location))
	}
	if len(sit.Entered) > 0 {
		fmt.Fprintf(&b, "Entered this turn: %s\n", names(sit.Entered))
	}
	if len(sit.Present) > 0 {
		fmt.Fprintf(&b, "Present: %s\n", names(sit.Present))
	}
	if len(sit.Touched) > 0 {
		fmt.Fprintf(&b, "Acted on: %s\n", names(sit.Touched))
	}
	for _, e := range sit.Events {
		fmt.Fprintf(&b, "Happened: %s\n", oneLine(e))
	}
	if n := oneLine(narration); n != "" {
		const most = 1500 // the narration is context, not the record
		if r := []rune(n); len(r) > most {
			n = string(r[:most]) + "…"
		}
		fmt.Fprintf(&b, "Narration: %s\n", n)
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
