package game

import (
	"context"
	"slices"

	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// ChoiceMaker offers the player's next choices in choice-based play (seed
// 001 §4.2.1), from the scene SceneForChoices describes; the
// player-choices skill is one.
type ChoiceMaker interface {
	Choices(ctx context.Context, scene map[string]any) ([]string, error)
}

// FallbackChoices are offered when the choice maker fails, so choice-based
// play never leaves the player without a way on.
var FallbackChoices = []string{"Continue", "Look around", "Wait"}

// UseChoices turns on choice-based play: every committed turn ends with
// three or four choices.
func (s *Session) UseChoices(c ChoiceMaker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Choices = c
}

// offerChoices asks the choice maker for the next choices, falling back
// to FallbackChoices, puts first up to two that the player character's
// memories, standing and stats suggest (ContextChoices), and makes a
// number typed next pick one. Each of those is rated (EvaluateChoice):
// one unlikely to succeed says so, and a picked one's memory callback
// counts on the roll it leads to.
func (s *Session) offerChoices(ctx context.Context) Awaiting {
	opts, err := s.opts.Choices.Choices(ctx, SceneForChoices(s.w))
	if err != nil || len(opts) == 0 {
		s.opts.Logger.Warn("choices unavailable; offering the fallback", "err", err)
		opts = FallbackChoices
	}
	mems := s.recallForChoices(ctx)
	p := &pending{}
	for _, c := range ContextChoices(s.w, mems) {
		if len(p.options) == maxContextChoices {
			break
		}
		ev := EvaluateChoice(s.w, c, mems)
		text := c.Text
		if ev.Unlikely {
			text += " (unlikely to succeed)"
		}
		p.options, p.inputs, p.evals = append(p.options, text), append(p.inputs, c.Input), append(p.evals, &ev)
	}
	for _, o := range opts {
		if len(p.options) == maxChoices {
			break
		}
		if !slices.Contains(p.options, o) {
			p.options, p.inputs, p.evals = append(p.options, o), append(p.inputs, ""), append(p.evals, nil)
		}
	}
	// Never fewer than three: the fallback makes up the number.
	for _, o := range FallbackChoices {
		if len(p.options) >= minChoices {
			break
		}
		if !slices.Contains(p.options, o) {
			p.options, p.inputs, p.evals = append(p.options, o), append(p.inputs, ""), append(p.evals, nil)
		}
	}
	s.await = p
	return Awaiting{Kind: Choice, Prompt: "What do you do? (Type a number, or anything else.)", Options: p.options}
}

// Three or four choices (seed 001 §4.2.1), of which two at most come
// from the character's own story, so the way on is always among them.
const (
	minChoices        = 3
	maxChoices        = 4
	maxContextChoices = 2
)

// recallForChoices recalls the memories shared with the people present,
// newest first; without a memory store there are none.
func (s *Session) recallForChoices(ctx context.Context) []narrative.Match {
	m := s.opts.Memories
	present := lore.Present(s.w)
	// The turn just played is not yet a memory to call back.
	if m == nil || len(present) == 0 || s.head < 2 {
		return nil
	}
	ms, err := m.Recall(ctx, narrative.Query{Playthrough: s.meta.ID, Limit: 20,
		Filter: narrative.Filter{Characters: present, ToTurn: s.head - 1}})
	if err != nil {
		s.opts.Logger.Warn("recall memories for choices", "err", err)
		return nil
	}
	return ms
}

// SceneForChoices is what a choice maker is told: where the player is and
// the ways on, who is present with what they think of the player and how
// their faction stands, the player's stats with their ranges and what they
// carry. It holds only what the player can see.
func SceneForChoices(w *world.State) map[string]any {
	scene := map[string]any{}
	here := w.Here()
	if here == nil {
		return scene
	}
	var exits []map[string]any
	for _, e := range here.Exits {
		if e.Hidden {
			continue
		}
		name := e.To
		if l := w.Locations[e.To]; l != nil {
			name = l.Name
		}
		exits = append(exits, map[string]any{"direction": e.Direction, "to": e.To, "name": name, "locked": e.Locked})
	}
	scene["location"] = map[string]any{"id": here.ID, "name": here.Name, "exits": exits}
	var present []map[string]any
	for _, id := range lore.Present(w) {
		c := w.Characters[id]
		p := map[string]any{"id": id, "name": c.Name, "perception": w.Perception(id), "hostile": c.Hostile}
		if c.Faction != "" {
			p["faction"], p["reputation"] = c.Faction, w.Reputation(c.Faction)
		}
		present = append(present, p)
	}
	scene["present"] = present
	stats, ranges := map[string]any{}, map[string]any{}
	if pc := w.PC(); pc != nil {
		for id, v := range pc.Stats {
			if d := w.StatDefs[id]; d != nil && !d.Hidden {
				stats[id], ranges[id] = v, []int{d.Min, d.Max}
			}
		}
		var inv []string
		for _, id := range world.SortedKeys(pc.Inventory) {
			name := id
			if it := w.Items[id]; it != nil {
				name = it.Name
			}
			inv = append(inv, name)
		}
		scene["inventory"] = inv
	}
	scene["stats"], scene["stat_ranges"] = stats, ranges
	scene["in_combat"] = w.Combat != nil
	return scene
}
