package modelgm

import (
	"context"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/world"
)

// turnStore is what a turn's skills may read through the host API: the
// opinions as the turn began (copied, so scripts never race the engine)
// and the playthrough's memories.
type turnStore struct {
	playthrough string
	turn        int
	at          world.GameTime
	location    string
	memories    game.Memories
	game        *game.Turn
	reputation  map[string]int
	perception  map[string]int
}

func newTurnStore(t *game.Turn) *turnStore {
	w := t.World()
	st := &turnStore{playthrough: t.Session(), turn: t.Number, at: w.Time, location: w.Scene.Location,
		memories: t.Memories(), game: t, reputation: map[string]int{}, perception: map[string]int{}}
	for id := range w.Factions {
		st.reputation[id] = w.Reputation(id)
	}
	for id := range w.Characters {
		if id != w.Player {
			st.perception[id] = w.Perception(id)
		}
	}
	return st
}

func (s *turnStore) Recall(ctx context.Context, query string, limit int) ([]host.Memory, error) {
	if s.memories == nil {
		return nil, nil
	}
	ms, err := s.memories.Recall(ctx, narrative.Query{Playthrough: s.playthrough, Text: query, Limit: limit,
		Filter: narrative.Filter{ToTurn: s.turn - 1}})
	if err != nil {
		return nil, err
	}
	out := make([]host.Memory, 0, len(ms))
	for _, m := range ms {
		out = append(out, host.Memory{Turn: m.Event.Turn, Summary: m.Event.Summary, Kind: string(m.Event.Kind),
			Location: m.Event.Location, Relevance: m.Score})
	}
	return out, nil
}

func (s *turnStore) Remember(ctx context.Context, m host.NewMemory) error {
	if s.memories == nil {
		return nil
	}
	kind, err := narrative.ParseKind(m.Kind)
	if err != nil {
		return err
	}
	// Committed with the turn, so a turn that fails leaves no memory.
	return s.game.Remember(narrative.Event{At: s.at, Wall: time.Now(),
		Summary: m.Summary, Characters: m.Characters, Location: s.location, Significance: max(1, min(m.Significance, 10)), Kind: kind})
}

func (s *turnStore) Reputation(f string) (int, bool) { v, ok := s.reputation[f]; return v, ok }
func (s *turnStore) Perception(n string) (int, bool) { v, ok := s.perception[n]; return v, ok }
