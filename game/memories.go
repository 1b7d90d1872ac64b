package game

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Memories keeps what happened in play as narrative memory events (seed
// 001 §4.1.3) and recalls them by relevance (package narrative/sqlitenarrative).
// A turn's own events are not stored through it: they are prepared here
// and committed with the turn (store.Turn.Memories).
type Memories interface {
	// Prepare readies events for storing (normalised, embedded) without
	// writing them.
	Prepare(ctx context.Context, evs ...narrative.Event) ([]narrative.Event, error)
	Remember(ctx context.Context, evs ...narrative.Event) ([]int64, error)
	Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error)
}

// Remember adds memory events to the turn, committed with it (a skill's
// remember). Playthrough, Session (the branch) and Turn are the turn's.
// Without a memory store it keeps nothing.
func (t *Turn) Remember(evs ...narrative.Event) error {
	if t.s.opts.Memories == nil {
		return nil
	}
	for _, e := range evs {
		e.Playthrough, e.Session, e.Turn = t.s.meta.ID, t.s.branch.ID, t.Number
		// Checked now: a bad event would otherwise fail the whole turn.
		if err := e.Normalize(); err != nil {
			return err
		}
		t.remembered = append(t.remembered, e)
	}
	return nil
}

// memoriesForCommit returns the turn's memory events, ready to commit
// with it: those added through Remember, and the turn itself when it
// changed something beyond the clock. They are derived from the turn, so
// failing to prepare them is logged and the turn commits without them.
func (s *Session) memoriesForCommit(ctx context.Context, t *Turn) []narrative.Event {
	m := s.opts.Memories
	if m == nil {
		return nil
	}
	evs := t.remembered
	if ev, ok := memoryOf(s.meta.ID, s.branch.ID, t, s.w); ok {
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		return nil
	}
	evs, err := m.Prepare(ctx, evs...)
	if err != nil {
		s.opts.Logger.Warn("memories of the turn not stored", "turn", t.Number, "err", err)
		return nil
	}
	return evs
}

// memoryOf summarises a turn as an event: its first sentence, who was
// there, where, and how much it mattered by what changed.
func memoryOf(playthrough, branch string, t *Turn, w *world.State) (narrative.Event, bool) {
	significance, kind := 0, narrative.KindEvent
	var tags []string
	for _, e := range t.effects {
		n := 0
		switch e := e.(type) {
		case world.CombatEnded:
			n = 7
			switch e.Outcome {
			case world.Victory:
				kind = narrative.KindTriumph
			case world.Defeat:
				kind = narrative.KindFailure
			}
		case world.QuestStatusChanged:
			n = 7
			switch e.To {
			case world.QuestCompleted:
				kind = narrative.KindTriumph
			case world.QuestFailed:
				kind = narrative.KindFailure
			}
		case world.ObjectiveCompleted, world.SecretRevealed, world.ConsequenceTriggered:
			n = 6
		case world.ItemTransferred, world.DiscoveryMade, world.FactRecorded, world.ReputationChanged, world.PerceptionChanged, world.CombatStarted:
			n = 4
		case world.SceneChanged, world.CharacterMoved:
			n = 2
		}
		if n > 0 {
			tags = append(tags, e.Kind())
		}
		significance = max(significance, n)
	}
	summary := firstSentence(t.Narrative())
	if significance == 0 || summary == "" {
		return narrative.Event{}, false
	}
	chars := append([]string{w.Player}, lore.Present(w)...)
	return narrative.Event{
		Playthrough: playthrough, Session: branch, Turn: t.Number, Scene: w.Scene.Number, At: w.Time, Wall: time.Now(),
		Summary: summary, Characters: chars, Location: w.Scene.Location, Significance: significance,
		Tags: uniq(tags), Kind: kind,
	}, true
}

// MemorySections recalls the memories the player's words bring up, for a
// model's context: what happened before that bears on this turn. They are
// drawn from narration the player read, so every role may see them.
func (t *Turn) MemorySections(ctx context.Context, role access.Level) []contextpack.Section {
	m := t.s.opts.Memories
	if m == nil || t.Input == "" {
		return nil
	}
	if t.memories == nil {
		matches, err := m.Recall(ctx, narrative.Query{Playthrough: t.s.meta.ID, Text: t.Input, Limit: 5,
			Filter: narrative.Filter{ToTurn: t.Number - 1}})
		if err != nil {
			t.s.opts.Logger.Warn("recall memories", "err", err)
		}
		t.memories = &matches
	}
	if len(*t.memories) == 0 {
		return nil
	}
	var b strings.Builder
	for _, mt := range *t.memories {
		e := mt.Event
		fmt.Fprintf(&b, "- turn %d", e.Turn)
		if e.Location != "" {
			fmt.Fprintf(&b, " (%s)", e.Location)
		}
		if e.Kind.Episodic() {
			fmt.Fprintf(&b, " [%s]", e.Kind)
		}
		fmt.Fprintf(&b, ": %s\n", e.Summary)
	}
	text := strings.TrimRight(b.String(), "\n")
	count := func(s string) int { return len(s)/4 + 1 }
	return []contextpack.Section{{Name: "memories", Tier: contextpack.TierHistory, Text: "What the player remembers that bears on this:\n" + text, Tokens: count(text) + 10}}
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// callback is the engine's situational hook: +1 to the player's check
// when the story remembers a triumph or failure the action calls back
// (seed 001 §7.4). Perception is the rules' own modifier and not added
// again here. ctx is the turn's.
func (s *Session) callback(ctx context.Context, w *world.State, in rules.Intent) []rules.Situational {
	m := s.opts.Memories
	if m == nil || s.input == "" {
		return nil
	}
	text := s.input
	if c, ok := in.(rules.Check); ok {
		text += " " + c.Reason
	}
	// A callback is a bonus, not the turn: a slow recall gives up after a
	// second and the check is rolled without it.
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	matches, err := m.Recall(ctx, narrative.Query{Playthrough: s.meta.ID, Text: text, Limit: 3,
		Filter: narrative.Filter{Episodic: true, ToTurn: w.Turn - 1}})
	if err != nil {
		s.opts.Logger.Warn("recall for a memory callback", "err", err)
		return nil
	}
	var out []rules.Situational
	for _, mod := range narrative.Modifiers(narrative.Situation{Memories: matches}) {
		if mod.Source == narrative.FromMemory {
			out = append(out, rules.Situational{Bonus: mod.Value, Reason: mod.Reason})
		}
	}
	if len(out) == 0 && s.chosen != nil && s.chosen.Callback != 0 {
		// The picked choice calls a memory back (evaluate-choice): the
		// callback counts once, whichever way it was found.
		out = append(out, rules.Situational{Bonus: s.chosen.Callback, Reason: s.chosen.Reason})
	}
	return out
}
