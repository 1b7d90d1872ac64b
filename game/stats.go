package game

import (
	"context"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// StatSections hands the campaign's stats to a model with their
// behavioural prompts (seed 001 §6.2.8, "Narrator AI Integration"): range,
// current value and how the story should reflect it. Hidden stats are in
// the GM's view only.
func (t *Turn) StatSections(_ context.Context, role access.Level) []contextpack.Section {
	text := statPrompts(t.s.w, role)
	if text == "" {
		return nil
	}
	return []contextpack.Section{{Name: "stats", Tier: contextpack.TierState, Text: strings.TrimRight(text, "\n"), Tokens: len(text)/4 + 1}}
}

func statPrompts(w *world.State, role access.Level) string {
	if len(w.StatDefs) == 0 {
		return ""
	}
	var defs []narrative.StatDef
	values := map[string]int{}
	pc := w.PC()
	for _, id := range world.SortedKeys(w.StatDefs) {
		d := narrative.FromWorld(*w.StatDefs[id])
		if d.BehavioralPrompt == "" {
			continue // a gauge with nothing to say to the narrator
		}
		defs = append(defs, d)
		switch {
		case d.NPC != "":
			if c := w.Characters[d.NPC]; c != nil {
				if v, ok := c.Stats[d.Name()]; ok {
					values[d.Key()] = v
				}
			}
		case pc != nil:
			if v, ok := pc.Stats[d.ID]; ok {
				values[d.Key()] = v
			}
		}
	}
	if len(defs) == 0 {
		return ""
	}
	return narrative.BehaviouralPrompts(defs, values, role)
}
