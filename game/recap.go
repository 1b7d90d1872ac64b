package game

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// Recap summarises turns without a model, from their committed effects:
// quests taken up and advanced, places reached, things gained and used up,
// people met, consequences that came to pass. Narration is not read, so
// flavour text (a location's atmosphere) can never pass for an event.
// Events are in the order they happened, at most max of them, keeping the
// first and the latest when there are more. w names the entities.
func Recap(w *world.State, turns []store.Turn, max int) string {
	r := recapper{w: w, met: map[string]bool{}, been: map[string]bool{}}
	for _, t := range turns {
		var raws []json.RawMessage
		if json.Unmarshal(t.Effects, &raws) != nil {
			continue
		}
		for _, raw := range raws {
			if e, err := world.UnmarshalEffect(raw); err == nil {
				r.effect(e)
			}
		}
	}
	lines := r.lines
	if max > 0 && len(lines) > max {
		lines = append(lines[:1], lines[len(lines)-max+1:]...)
	}
	return strings.Join(lines, " ")
}

// recapper turns effects into sentences, telling each place and person once.
type recapper struct {
	w     *world.State
	lines []string
	met   map[string]bool
	been  map[string]bool
}

func (r *recapper) add(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *recapper) effect(e world.Effect) {
	pc := ""
	if r.w != nil {
		pc = r.w.Player
	}
	switch e := e.(type) {
	case world.CharacterMoved:
		if e.Character == pc && !r.been[e.To] {
			r.been[e.To] = true
			r.add("You reached %s.", r.name(e.To))
		}
	case world.QuestStatusChanged:
		switch e.To {
		case world.QuestActive:
			r.add("You took up the quest %s.", r.name(e.Quest))
		case world.QuestCompleted:
			r.add("You completed %s.", r.name(e.Quest))
		case world.QuestFailed:
			r.add("You failed %s.", r.name(e.Quest))
		}
	case world.ObjectiveCompleted:
		r.add("%s: %s — done.", r.name(e.Quest), r.objective(e.Quest, e.Objective))
	case world.ItemTransferred:
		switch {
		case e.To == pc && pc != "":
			r.add("You gained %s.", r.name(e.Item))
		case e.From == pc && pc != "" && e.To == "":
			r.add("You used up %s.", r.name(e.Item))
		case e.From == pc && pc != "":
			r.add("You gave %s to %s.", r.name(e.Item), r.name(e.To))
		}
	case world.ConsequenceTriggered:
		if r.w != nil {
			if c := r.w.Consequences[e.ID]; c != nil && c.Trigger != "" {
				r.add("%s.", sentenceCase(strings.TrimSuffix(c.Trigger, ".")))
			}
		}
	case world.DiscoveryMade:
		r.add("You found something at %s.", r.name(e.Location))
	case world.ExitChanged:
		if !e.Locked && !e.Hidden {
			r.add("The way from %s to %s lay open.", r.name(e.Location), r.name(e.To))
		}
	case world.CombatEnded:
		r.add("A fight ended (%s).", strings.ReplaceAll(e.Outcome, "_", " "))
	case world.ConditionApplied:
		if e.Condition == "dead" {
			r.add("%s died.", sentenceCase(r.name(e.Target)))
		}
	case world.EntitiesMentioned:
		for _, id := range e.IDs {
			if r.w == nil || id == pc || r.met[id] {
				continue
			}
			if c := r.w.Characters[id]; c != nil && !c.Hostile {
				r.met[id] = true
				r.add("You met %s.", c.Name)
			}
		}
	case world.StatePatched:
		for _, k := range world.SortedKeys(e.Patch) {
			r.add("%s became %v.", strings.ReplaceAll(k, "_", " "), e.Patch[k])
		}
	case world.ThreadUpdated:
		if e.Thread.Status == "resolved" {
			r.add("Resolved: %s", sentenceCase(e.Thread.Title))
		}
	}
}

func (r *recapper) name(id string) string {
	if r.w == nil {
		return id
	}
	if id == r.w.Player {
		return "you"
	}
	if c := r.w.Characters[id]; c != nil {
		return c.Name
	}
	if l := r.w.Locations[id]; l != nil {
		return l.Name
	}
	if it := r.w.Items[id]; it != nil {
		return it.Name
	}
	if q := r.w.Quests[id]; q != nil {
		return q.Name
	}
	return strings.ReplaceAll(id, "_", " ")
}

func (r *recapper) objective(quest, id string) string {
	if r.w != nil {
		if q := r.w.Quests[quest]; q != nil {
			for _, o := range q.Objectives {
				if o.ID == id && o.Text != "" {
					return o.Text
				}
			}
		}
	}
	return strings.ReplaceAll(id, "_", " ")
}

func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// recap answers the player's "what has happened": the whole branch so far,
// told from its effects. The caller holds s.mu.
func (s *Session) recap(ctx context.Context) (string, error) {
	if s.head < 1 {
		return "Nothing has happened yet: the story starts here.", nil
	}
	turns, err := s.st.Turns(ctx, s.branch.ID, 1, s.head)
	if err != nil {
		return "", fmt.Errorf("recap: %w", err)
	}
	text := Recap(s.w, turns, 20)
	if text == "" {
		return "Nothing of note has happened yet.", nil
	}
	return "So far: " + text, nil
}
