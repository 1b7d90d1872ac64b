package game

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/world"
)

// AgentFor gives the agent that plays a party member whose controller
// names a model (world.Controller's Provider and Model); app resolves it
// through the configured providers.
type AgentFor func(ctx context.Context, m world.PartyMember) (Agent, error)

// UseAgents sets how party members' models are found. Without it, or
// for a member whose controller names no model, the offline agent plays.
func (s *Session) UseAgents(f AgentFor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agents = f
}

// UseMemorySummariser sets the summariser that compresses party members'
// memories; without one they are compressed extractively.
func (s *Session) UseMemorySummariser(m MemorySummariser) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summariser = m
}

// AgentOf returns the agent that plays m now, by its controller: its
// model's agent, or the offline agent when it names none. Asked again
// after a controller change it gives the new model's. The agent's Name,
// when it has one, is what a turn records as its controller.
func (s *Session) AgentOf(ctx context.Context, m world.PartyMember) (Agent, error) {
	s.mu.Lock()
	f := s.agents
	s.mu.Unlock()
	c := m.Controller
	if c.Kind != world.ControllerAI {
		return nil, fmt.Errorf("%s is played by %s, not an agent", m.Character, c.Label())
	}
	if f == nil || c.Model == "" || c.Provider == "offline" {
		return offlinegm.NewAgent(), nil
	}
	a, err := f(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("the agent of %s (%s): %w", m.Character, c.Label(), err)
	}
	return a, nil
}

// AgentName is the controller a turn decided by a records: its Name, else
// the member's controller.
func AgentName(a Agent, m world.PartyMember) string {
	if n, ok := a.(interface{ Name() string }); ok {
		return n.Name()
	}
	return m.Controller.Label()
}

// MemorySummariser compresses a party member's memory: the summary so far
// and the entries to fold into it become the new summary.
type MemorySummariser interface {
	SummariseMemory(ctx context.Context, character, summary string, entries []world.MemoryEntry) (string, error)
}

// Memory budget: a member's short-term memory is compressed when its
// entries pass MemoryTokens (about four characters a token); the last
// MemoryKeep entries stay verbatim.
const (
	MemoryTokens    = 600
	MemoryKeep      = 4
	memoryEntryMax  = 600
	memorySummaryMx = 2400
)

// ExtractiveMemory compresses without a model: the summary so far and the
// first sentence of each entry, the oldest cut when it grows too long.
type ExtractiveMemory struct{}

// SummariseMemory implements MemorySummariser.
func (ExtractiveMemory) SummariseMemory(_ context.Context, _, summary string, entries []world.MemoryEntry) (string, error) {
	var b strings.Builder
	b.WriteString(summary)
	for _, e := range entries {
		s := strings.Join(strings.Fields(e.Text), " ")
		if i := strings.IndexAny(s, ".!?\n"); i > 0 {
			s = s[:i+1]
		}
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if e.Secret {
			s = "[secret] " + s
		}
		fmt.Fprintf(&b, "(T%d) %s", e.Turn, s)
	}
	out := []rune(b.String())
	if len(out) > memorySummaryMx {
		out = append([]rune("…"), out[len(out)-memorySummaryMx:]...)
	}
	return string(out), nil
}

// remember records the turn in the memory of each party member who
// witnessed it (stood where it happened, at its start or its end) and
// each whisper in its target's alone, then compresses a memory grown past
// its budget. All of it is effects of the turn, so replay rebuilds every
// memory exactly whatever the summariser is. A game without a party, and
// the DM's own turns at the table, remember nothing.
func (t *Turn) remember(ctx context.Context, actorAt string) error {
	s := t.s
	w := s.w
	if len(w.Party) == 0 || t.dm {
		return nil
	}
	actor := w.Characters[w.Player]
	where := map[string]bool{actorAt: actorAt != ""}
	if actor != nil && actor.Location != "" {
		where[actor.Location] = true
	}
	text := t.Narrative()
	if t.Input != "" {
		name := w.Player
		if actor != nil {
			name = actor.Name
		}
		text = name + ": " + t.Input + "\n" + text
	}
	if r := []rune(text); len(r) > memoryEntryMax {
		text = string(r[:memoryEntryMax]) + "…"
	}
	var add world.Effects
	for _, m := range w.Party {
		c := w.Characters[m.Character]
		if c == nil || !c.Alive() || !(where[c.Location] || m.Character == w.Player) {
			continue
		}
		add = append(add, world.MemoryRecorded{Character: m.Character, Entry: world.MemoryEntry{Turn: t.Number, Text: text}})
	}
	for _, e := range t.effects {
		if ws, ok := e.(world.WhisperSent); ok && w.Member(ws.Whisper.To) != nil {
			add = append(add, world.MemoryRecorded{Character: ws.Whisper.To,
				Entry: world.MemoryEntry{Turn: t.Number, Text: ws.Whisper.Text, Secret: true}})
		}
	}
	for _, e := range add {
		if err := w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
	}
	sum := s.summariser
	if sum == nil {
		sum = ExtractiveMemory{}
	}
	for _, m := range w.Party {
		mem := w.Memory[m.Character]
		if mem == nil || len(mem.Recent) <= MemoryKeep || memoryTokens(mem.Recent) <= MemoryTokens {
			continue
		}
		fold := mem.Recent[:len(mem.Recent)-MemoryKeep]
		text, err := sum.SummariseMemory(ctx, m.Character, mem.Summary, fold)
		if err != nil || strings.TrimSpace(text) == "" {
			s.opts.Logger.Warn("memory summariser failed; compressing extractively", "character", m.Character, "err", err)
			text, _ = ExtractiveMemory{}.SummariseMemory(ctx, m.Character, mem.Summary, fold)
		}
		e := world.MemoryCompressed{Character: m.Character, Through: fold[len(fold)-1].Turn, Summary: strings.TrimSpace(text)}
		if err := w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
	}
	return nil
}

func memoryTokens(es []world.MemoryEntry) int {
	n := 0
	for _, e := range es {
		n += (len(e.Text) + 3) / 4
	}
	return n
}
