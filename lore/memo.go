package lore

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/retrieve"
)

// keptIndex is an index that can say when its results are fixed: its
// generation stamp changes with every write (and identifies it: a
// database restored from an older copy and written to again never shows
// a stamp seen before), and Kept reports whether every query's result is
// kept for a generation (so searching it again gives the same result; a
// result degraded by a failing embedder is not kept). Stamps are only
// compared for equality. sqliteindex.Index is one.
type keptIndex interface {
	Generation(ctx context.Context) (string, error)
	Kept(gen string, qs []retrieve.Query) bool
}

// maxScenes bounds the scenes a Keeper keeps: a campaign has a few
// dozen locations, each entered with a few states of the world.
const maxScenes = 256

// sceneMemo keeps prepared scenes by their plan, for one index
// generation.
type sceneMemo struct {
	mu     sync.Mutex
	gen    string
	scenes map[string]*Cache
}

// memoKey identifies a scene's lore: its number and location and every
// search it runs, in order. "" when it cannot be encoded.
func memoKey(c *Cache, plan scenePlan) string {
	type step struct {
		Section, Character, Name string
		Q                        retrieve.Query
	}
	steps := make([]step, len(plan))
	for i, p := range plan {
		steps[i] = step{p.section, p.character, p.name, p.q}
	}
	b, err := json.Marshal(struct {
		Scene    int
		Location string
		Steps    []step
	}{c.Scene, c.Location, steps})
	if err != nil {
		return ""
	}
	return string(b)
}

// get returns a copy of the scene kept under key for generation gen, or
// nil.
func (m *sceneMemo) get(gen string, key string) *Cache {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen {
		return nil
	}
	if c := m.scenes[key]; c != nil {
		return c.shared()
	}
	return nil
}

func (m *sceneMemo) put(gen string, key string, c *Cache) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen || m.scenes == nil || len(m.scenes) >= maxScenes {
		m.gen, m.scenes = gen, map[string]*Cache{}
	}
	m.scenes[key] = c.shared()
}

// shared copies c with every list clipped to its length, so a holder
// appending to its copy (Join adds briefings, a section adds cuts)
// allocates anew instead of writing into the kept one. No caller writes
// into a list's elements.
func (c *Cache) shared() *Cache {
	out := *c
	out.Atmosphere = slices.Clip(out.Atmosphere)
	out.NPCBriefings = slices.Clip(out.NPCBriefings)
	out.Discoverable = slices.Clip(out.Discoverable)
	out.ThreadConnections = slices.Clip(out.ThreadConnections)
	out.Cuts = slices.Clip(out.Cuts)
	return &out
}
